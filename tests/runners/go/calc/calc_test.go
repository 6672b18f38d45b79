// Package calc: two pass, two fail (one in a subtest), one skipped.
package calc

import "testing"

func TestAdd(t *testing.T) {
	if 1+1 != 2 {
		t.Fatal("add")
	}
}

func TestAddMore(t *testing.T) {
	if 2+2 != 4 {
		t.Fatal("add more")
	}
}

func TestDiv(t *testing.T) {
	got := 7 / 2
	if got != 4 {
		t.Errorf("7/2 = %d, want 4", got)
	}
}

func TestTable(t *testing.T) {
	t.Run("ok", func(t *testing.T) {})
	t.Run("bad", func(t *testing.T) { t.Error("bad case") })
}

func TestLater(t *testing.T) {
	t.Skip("later")
}
