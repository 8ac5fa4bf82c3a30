package keys_test

import (
	"bytes"
	"crypto/ed25519"
	"fmt"

	"github.com/gatehouse-dev/gatehouse/keys"
)

func Example() {
	priv := ed25519.NewKeyFromSeed(bytes.Repeat([]byte{7}, ed25519.SeedSize))

	// What `gatehouse keygen` writes: an encrypted OpenSSH private key and
	// its public key, here as PEM.
	privFile, _ := keys.MarshalPrivateKey(priv, keys.OpenSSH, []byte("passphrase"), "approver")
	pubFile, _ := keys.MarshalPublicKey(priv.Public().(ed25519.PublicKey), keys.PEM, "")

	back, err := keys.ParsePrivateKey(privFile, []byte("passphrase"))
	fmt.Println(err, back.Equal(priv))
	pub, err := keys.ParsePublicKey(pubFile)
	fmt.Println(err, pub.Equal(priv.Public()))
	// Output:
	// <nil> true
	// <nil> true
}
