// Package strs: one pass, one fail whose name is a prefix of a passing
// test's name (the -run regex must be anchored).
package strs

import (
	"strings"
	"testing"
)

func TestUpper(t *testing.T) {
	if strings.ToUpper("a") != "B" {
		t.Error("upper")
	}
}

func TestUpperCase(t *testing.T) {
	if strings.ToUpper("a") != "A" {
		t.Error("upper case")
	}
}
