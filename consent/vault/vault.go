package vault

import (
	"crypto/aes"
	"crypto/cipher"
	"crypto/ed25519"
	"crypto/hkdf"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"sync"
	"time"

	"github.com/gatehouse-dev/gatehouse/consent"
	"github.com/gatehouse-dev/gatehouse/internal/fsutil"
	"github.com/gatehouse-dev/gatehouse/normalize"
)

// Vault file format (ACP §2.3), version 1.
const (
	vaultVersion    = 1
	vaultEncryption = "aes-256-gcm"
	vaultKDF        = "hkdf-sha256"
	vaultInfo       = "gatehouse consent vault v1"
	vaultSaltLen    = 32
	// MinMasterKeyLen is the shortest master key a vault accepts.
	MinMasterKeyLen = 32
)

// secretName is what a vault key may be called.
var secretName = regexp.MustCompile(`^[A-Za-z0-9_.-]{1,64}$`)

// Options configure a [Vault]. nil means defaults.
type Options struct {
	// OnEvent receives a credential_injected event per secret injected
	// (key name only). An error stops the injection.
	OnEvent consent.EventFunc
	// Now is the clock for events (default time.Now).
	Now func() time.Time
}

// Vault holds named secrets encrypted at rest with AES-256-GCM under a key
// derived by HKDF-SHA256 from a master key and a random per-vault salt
// (ACP §2.3; the reference implementation's fixed salt is not used). A
// secret reaches a tool only through [Vault.Inject], with the [consent.Grant] of an
// approved consent for that very call.
//
// Printing a Vault shows its size, never secrets. A Vault is safe for
// concurrent use.
type Vault struct {
	key     []byte // AES-256 key
	salt    []byte
	onEvent consent.EventFunc
	now     func() time.Time

	mu       sync.RWMutex
	secrets  map[string]string
	bindings map[string]binding // by secret name; configuration, not stored in the file
	// retired holds the values Set replaced and Delete removed (value ->
	// name), for ScrubberAll: a tool may still hold one.
	retired map[string]string
	gen     uint64    // counts changes of secrets, for ScrubberAll's cache
	all     *Scrubber // ScrubberAll's, as of allGen
	allGen  uint64
}

// binding says which calls may receive a secret.
type binding struct {
	tools   map[string]bool // normalized tool names
	servers map[string]bool // nil: any server
}

// MasterKeyFromSigningKey returns the master key ACP derives the vault key
// from: the seed of the Ed25519 signing key (ACP §2.3).
func MasterKeyFromSigningKey(priv ed25519.PrivateKey) []byte {
	return append([]byte(nil), priv.Seed()...)
}

// New returns an empty vault with a fresh random salt. master must
// have at least [MinMasterKeyLen] bytes of secret randomness. opts may be
// nil.
func New(master []byte, opts *Options) (*Vault, error) {
	salt := make([]byte, vaultSaltLen)
	_, _ = rand.Read(salt)
	return newVault(master, salt, opts)
}

func newVault(master, salt []byte, opts *Options) (*Vault, error) {
	if len(master) < MinMasterKeyLen {
		return nil, fmt.Errorf("%w: vault master key of %d bytes, want at least %d", consent.ErrInvalidOptions, len(master), MinMasterKeyLen)
	}
	key, err := hkdf.Key(sha256.New, master, salt, vaultInfo, 32)
	if err != nil {
		return nil, fmt.Errorf("%w: deriving the vault key: %w", consent.ErrInvalidOptions, err)
	}
	v := &Vault{key: key, salt: salt, now: time.Now, secrets: map[string]string{}, bindings: map[string]binding{}}
	if opts != nil {
		v.onEvent = opts.OnEvent
		if opts.Now != nil {
			v.now = opts.Now
		}
	}
	return v, nil
}

// vaultFile is the JSON form of ACP §2.3, with the KDF named.
type vaultFile struct {
	Version    int    `json:"version"`
	Encryption string `json:"encryption"`
	KDF        string `json:"kdf"`
	Salt       string `json:"salt"`
	IV         string `json:"iv"`
	Data       string `json:"data"`
	Tag        string `json:"tag"`
}

// aad binds the header to the ciphertext.
func (f *vaultFile) aad() []byte {
	return []byte(strconv.Itoa(f.Version) + "|" + f.Encryption + "|" + f.KDF + "|" + f.Salt)
}

// Open decrypts a vault marshalled by [Vault.Marshal]. A wrong master
// key and any change to the file fail with [ErrKeyFile]. opts may be nil.
func Open(data, master []byte, opts *Options) (*Vault, error) {
	var f vaultFile
	if err := json.Unmarshal(data, &f); err != nil {
		return nil, fmt.Errorf("%w: vault is not JSON", ErrKeyFile)
	}
	if f.Version != vaultVersion || f.Encryption != vaultEncryption || f.KDF != vaultKDF {
		return nil, fmt.Errorf("%w: unsupported vault version %d, encryption %q, kdf %q", ErrKeyFile, f.Version, clip(f.Encryption), clip(f.KDF))
	}
	salt, err1 := hex.DecodeString(f.Salt)
	iv, err2 := hex.DecodeString(f.IV)
	ct, err3 := hex.DecodeString(f.Data)
	tag, err4 := hex.DecodeString(f.Tag)
	if err1 != nil || err2 != nil || err3 != nil || err4 != nil || len(salt) != vaultSaltLen || len(iv) != 12 || len(tag) != 16 {
		return nil, fmt.Errorf("%w: vault salt, iv, data or tag badly encoded", ErrKeyFile)
	}
	v, err := newVault(master, salt, opts)
	if err != nil {
		return nil, err
	}
	aead, err := v.aead()
	if err != nil {
		return nil, err
	}
	plain, err := aead.Open(nil, iv, append(ct, tag...), f.aad())
	if err != nil {
		return nil, fmt.Errorf("%w: vault does not decrypt: wrong master key or tampered file", ErrKeyFile)
	}
	if err := json.Unmarshal(plain, &v.secrets); err != nil || v.secrets == nil {
		return nil, fmt.Errorf("%w: vault content is not a JSON object of strings", ErrKeyFile)
	}
	for name := range v.secrets {
		if !secretName.MatchString(name) {
			return nil, fmt.Errorf("%w: vault holds an invalid secret name", ErrKeyFile)
		}
	}
	return v, nil
}

// Load reads and opens the vault file at path. It refuses a file that
// group or others may read.
func Load(path string, master []byte, opts *Options) (*Vault, error) {
	data, err := readPrivateFile(path)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrKeyFile, err)
	}
	return Open(data, master, opts)
}

func (v *Vault) aead() (cipher.AEAD, error) {
	b, err := aes.NewCipher(v.key)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrKeyFile, err)
	}
	return cipher.NewGCM(b)
}

// Marshal encrypts the vault with a fresh random IV and returns the ACP
// §2.3 JSON form.
func (v *Vault) Marshal() ([]byte, error) {
	v.mu.RLock()
	plain, err := json.Marshal(v.secrets)
	v.mu.RUnlock()
	if err != nil {
		return nil, err
	}
	aead, err := v.aead()
	if err != nil {
		return nil, err
	}
	iv := make([]byte, aead.NonceSize())
	_, _ = rand.Read(iv)
	f := vaultFile{Version: vaultVersion, Encryption: vaultEncryption, KDF: vaultKDF, Salt: hex.EncodeToString(v.salt), IV: hex.EncodeToString(iv)}
	sealed := aead.Seal(nil, iv, plain, f.aad())
	clear(plain)
	n := len(sealed) - aead.Overhead()
	f.Data, f.Tag = hex.EncodeToString(sealed[:n]), hex.EncodeToString(sealed[n:])
	return json.MarshalIndent(f, "", "  ")
}

// Save writes the encrypted vault to path with mode 0600, atomically.
func (v *Vault) Save(path string) error {
	data, err := v.Marshal()
	if err != nil {
		return err
	}
	if err := fsutil.WriteFileAtomic(path, data, 0o600, false); err != nil {
		return fmt.Errorf("%w: writing vault: %w", ErrKeyFile, err)
	}
	return nil
}

// Set stores value under name (1 to 64 of A-Z a-z 0-9 _ . -).
func (v *Vault) Set(name, value string) error {
	if !secretName.MatchString(name) {
		return fmt.Errorf("%w: secret name %q, want 1 to 64 of A-Z a-z 0-9 _ . -", consent.ErrInvalidRequest, clip(name))
	}
	v.mu.Lock()
	v.retire(name)
	v.secrets[name] = value
	v.gen++
	v.mu.Unlock()
	return nil
}

// retire keeps the value of name, about to be replaced or removed. Callers
// hold v.mu.
func (v *Vault) retire(name string) {
	if _, bound := v.bindings[name]; !bound {
		return // never injected
	}
	if old, ok := v.secrets[name]; ok {
		if v.retired == nil {
			v.retired = map[string]string{}
		}
		v.retired[old] = name
	}
}

// ScrubberAll returns a [Scrubber] of every value the vault has held since
// it was opened in this process that [Vault.Inject] could inject (bound to
// some tool, [Vault.Bind], and at least [MinInjectLen] bytes), the values
// Set replaced or Delete removed included. A guard scrubs with it from its first message: a tool that
// stored an injected secret returns it after a restart, or from another
// replica, to a guard that injected nothing. Values under one name keep
// the current value's name; the Scrubber is rebuilt only after a change.
// It is nil when there is no such value.
func (v *Vault) ScrubberAll() *Scrubber {
	v.mu.RLock()
	if v.allGen == v.gen && (v.all != nil || v.gen == 0 && len(v.secrets) == 0) {
		defer v.mu.RUnlock()
		return v.all
	}
	v.mu.RUnlock()
	v.mu.Lock()
	defer v.mu.Unlock()
	if v.allGen == v.gen && (v.all != nil || v.gen == 0 && len(v.secrets) == 0) {
		return v.all
	}
	byValue := map[string]string{} // value -> name
	for val, name := range v.retired {
		if len(val) >= MinInjectLen {
			byValue[val] = name
		}
	}
	for name, val := range v.secrets {
		if _, bound := v.bindings[name]; bound && len(val) >= MinInjectLen {
			byValue[val] = name
		}
	}
	v.all, v.allGen = nil, v.gen
	if len(byValue) > 0 {
		v.all = newScrubber(byValue)
	}
	return v.all
}

// Bind lets the secret name be injected into calls of tools (names as the
// policy writes them; normalized) on servers (Action.Server; none means any
// server), replacing earlier bindings of name. A secret without a binding
// is injected nowhere ([ErrSecretNotAllowed]): an approved call of one tool
// cannot pull another tool's credential by naming it. Bindings are
// configuration, kept in memory and not written to the vault file; set them
// at startup, after [Load].
func (v *Vault) Bind(name string, tools, servers []string) error {
	if !secretName.MatchString(name) {
		return fmt.Errorf("%w: secret name %q, want 1 to 64 of A-Z a-z 0-9 _ . -", consent.ErrInvalidRequest, clip(name))
	}
	if len(tools) == 0 {
		return fmt.Errorf("%w: Bind %q needs at least one tool", consent.ErrInvalidRequest, name)
	}
	b := binding{tools: map[string]bool{}}
	for _, t := range tools {
		b.tools[normalize.Name(t)] = true
	}
	if len(servers) > 0 {
		b.servers = map[string]bool{}
		for _, s := range servers {
			b.servers[s] = true
		}
	}
	v.mu.Lock()
	v.bindings[name] = b
	v.gen++
	v.mu.Unlock()
	return nil
}

// allowed reports whether secret name may go to tool (normalized) on
// server. Callers hold v.mu.
func (v *Vault) allowed(name, tool, server string) bool {
	b, ok := v.bindings[name]
	return ok && b.tools[tool] && (b.servers == nil || b.servers[server])
}

// Delete removes name.
func (v *Vault) Delete(name string) {
	v.mu.Lock()
	v.retire(name)
	delete(v.secrets, name)
	v.gen++
	v.mu.Unlock()
}

// Names returns the names of the secrets, sorted.
func (v *Vault) Names() []string {
	v.mu.RLock()
	defer v.mu.RUnlock()
	names := make([]string, 0, len(v.secrets))
	for n := range v.secrets {
		names = append(names, n)
	}
	slices.Sort(names)
	return names
}

// String describes the vault without its secrets.
func (v *Vault) String() string {
	v.mu.RLock()
	defer v.mu.RUnlock()
	return fmt.Sprintf("vault.Vault{%d secrets}", len(v.secrets))
}

// GoString is String.
func (v *Vault) GoString() string { return v.String() }
