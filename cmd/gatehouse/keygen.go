package main

import (
	"bytes"
	"crypto/ed25519"
	"crypto/rand"
	"fmt"
	"io"
	"os"

	"github.com/gatehouse-dev/gatehouse/keys"
)

var _ = register(command{
	Name:    "keygen",
	Args:    "-out FILE [-format openssh|pem] [-passphrase-file F | -passphrase-env VAR] [-comment C]",
	Summary: "make an Ed25519 key pair for consent proofs and audit checkpoints",
	Run:     keygen,
})

const keygenDetails = `
Writes the private key to FILE (mode 0600) and the public key to FILE.pub;
neither may exist. Formats (package keys reads both everywhere a key is read):
openssh: "OPENSSH PRIVATE KEY" and an "ssh-ed25519 ..." line, as ssh-keygen
writes them; with a passphrase the private key is encrypted (bcrypt-pbkdf,
AES-256-CTR). pem: PKCS#8 "PRIVATE KEY" and SPKI "PUBLIC KEY"; unencrypted
only. The passphrase is read from a file (its first line) or an environment
variable, never from the command line. The public key is also printed.`

func keygen(s *stdio, c *command, args []string) int {
	fs := c.flags(s, keygenDetails)
	out := fs.String("out", "", "private key `FILE`; the public key goes to FILE.pub")
	format := fs.String("format", "openssh", "key file `format`: openssh or pem")
	passFile := fs.String("passphrase-file", "", "read the passphrase from the first line of `F`")
	passEnv := fs.String("passphrase-env", "", "read the passphrase from environment variable `VAR`")
	comment := fs.String("comment", "gatehouse", "comment stored with an OpenSSH key")
	if code, ok := parse(fs, args); !ok {
		return code
	}
	switch {
	case fs.NArg() != 0:
		return usageError(s, fs, "unexpected argument %q", fs.Arg(0))
	case *out == "":
		return usageError(s, fs, "-out FILE is required")
	case *passFile != "" && *passEnv != "":
		return usageError(s, fs, "give -passphrase-file or -passphrase-env, not both")
	}
	f, err := keys.ParseFormat(*format)
	if err != nil {
		return usageError(s, fs, "%v", err)
	}
	pass, err := readPassphrase(*passFile, *passEnv)
	if err != nil {
		return usageError(s, fs, "%v", err)
	}
	if f == keys.PEM && len(pass) > 0 {
		return usageError(s, fs, "PEM keys are written unencrypted; use -format openssh with a passphrase")
	}
	for _, p := range []string{*out, *out + ".pub"} {
		if _, err := os.Lstat(p); err == nil {
			return usageError(s, fs, "%s exists; refusing to overwrite it", p)
		}
	}
	return writeKeyPair(s, *out, f, pass, *comment)
}

func writeKeyPair(s *stdio, out string, f keys.Format, pass []byte, comment string) int {
	pub, priv, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		fmt.Fprintf(s.err, "gatehouse keygen: %v\n", err)
		return exitFinding
	}
	privData, err := keys.MarshalPrivateKey(priv, f, pass, comment)
	if err != nil {
		fmt.Fprintf(s.err, "gatehouse keygen: %v\n", err)
		return exitFinding
	}
	defer clear(privData)
	pubData, err := keys.MarshalPublicKey(pub, f, comment)
	if err != nil {
		fmt.Fprintf(s.err, "gatehouse keygen: %v\n", err)
		return exitFinding
	}
	if err := keys.WritePrivateKey(out, privData); err != nil {
		fmt.Fprintf(s.err, "gatehouse keygen: %v\n", err)
		return exitUsage
	}
	if err := keys.WritePublicKey(out+".pub", pubData); err != nil {
		fmt.Fprintf(s.err, "gatehouse keygen: %v\n", err)
		return exitUsage
	}
	enc := "unencrypted"
	if len(pass) > 0 {
		enc = "encrypted"
	}
	fmt.Fprintf(s.err, "wrote %s (%s private key, %s) and %s.pub\n", out, f, enc, out)
	s.out.Write(pubData)
	return exitOK
}

// maxPassphrase bounds the first line of -passphrase-file.
const maxPassphrase = 4096

// readPassphrase returns the passphrase from the first line of file, or
// from the environment variable env; nil when neither is given. An empty
// passphrase that was asked for is an error.
func readPassphrase(file, env string) ([]byte, error) {
	var p []byte
	switch {
	case file != "":
		f, err := os.Open(file)
		if err != nil {
			return nil, err
		}
		defer f.Close()
		// Only the first line is read, and at most maxPassphrase bytes of
		// it: a device such as /dev/zero has no end.
		data, err := io.ReadAll(io.LimitReader(f, maxPassphrase+1))
		if err != nil {
			return nil, err
		}
		line, _, found := bytes.Cut(data, []byte("\n"))
		if !found && len(data) > maxPassphrase || len(line) > maxPassphrase {
			return nil, fmt.Errorf("the first line of %s is longer than %d bytes", file, maxPassphrase)
		}
		p = bytes.TrimSuffix(line, []byte("\r"))
		if len(p) == 0 {
			return nil, fmt.Errorf("the first line of %s is empty", file)
		}
	case env != "":
		v, ok := os.LookupEnv(env)
		if !ok || v == "" {
			return nil, fmt.Errorf("environment variable %s is unset or empty", env)
		}
		p = []byte(v)
	}
	return p, nil
}
