//go:build !linux

package hugeheap

import (
	"errors"
	"time"
)

func advisable() bool      { return false }
func advise(b []byte) bool { return false }
func available() int64     { return 0 }
func freeHuge() int64      { return -1 }

// TouchFresh measures the first touch of new memory on Linux only.
func TouchFresh(n int64) (time.Duration, error) {
	return 0, errors.New("hugeheap: touching fresh memory is measured on Linux only")
}
