package audit

import (
	"github.com/gatehouse-dev/gatehouse/internal/jcs"
	"github.com/gatehouse-dev/gatehouse/internal/jcs/jcsref"
)

// RefCanon gives the black-box tests (refVerify) the reference canonical
// form of FORMAT.md ("Numbers"): gowebpki/jcs with numbers a double does
// not hold kept as written (internal/jcs/jcsref).
var RefCanon = func(in []byte) ([]byte, error) { return jcsref.Canon(in, jcs.ExactDouble) }
