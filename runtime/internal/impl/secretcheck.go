package impl

import (
	"errors"
	"fmt"
)

// minSecretDistinct is the fewest distinct byte values a secret must hold.
const minSecretDistinct = 8

// CheckSecret reports why b is not an acceptable secret (an ID secret, a
// signing key), or nil: only white space, shorter than MinIDSecretLength
// bytes, fewer than 8 distinct byte values (one repeated character, say),
// or a short pattern repeated (a period of at most half its length, such as
// "abcd" eight times). runtime.WithSecrets and package runtime/secret apply
// this one rule.
func CheckSecret(b []byte) error {
	if len(b) > 0 && onlySpace(b) {
		return errors.New("it is only white space")
	}
	if len(b) < MinIDSecretLength {
		return fmt.Errorf("it has %d bytes, want at least %d", len(b), MinIDSecretLength)
	}
	var seen [256]bool
	distinct := 0
	for _, c := range b {
		if !seen[c] {
			seen[c] = true
			distinct++
		}
	}
	if distinct < minSecretDistinct {
		return fmt.Errorf("it has only %d distinct byte values, want at least %d: it is not random", distinct, minSecretDistinct)
	}
	if p := period(b); p <= len(b)/2 {
		return fmt.Errorf("it repeats a %d-byte pattern: it is not random", p)
	}
	return nil
}

func onlySpace(b []byte) bool {
	for _, c := range b {
		switch c {
		case ' ', '\t', '\n', '\r', '\v', '\f':
		default:
			return false
		}
	}
	return true
}

// period is the smallest p such that b[i] == b[i-p] for every i >= p
// (len(b) when there is none), from the Knuth-Morris-Pratt failure
// function (the longest proper border).
func period(b []byte) int {
	if len(b) == 0 {
		return 0
	}
	fail := make([]int, len(b))
	k := 0
	for i := 1; i < len(b); i++ {
		for k > 0 && b[i] != b[k] {
			k = fail[k-1]
		}
		if b[i] == b[k] {
			k++
		}
		fail[i] = k
	}
	return len(b) - fail[len(b)-1]
}
