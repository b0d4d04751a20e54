//go:build !linux

package hugeheap

func advisable() bool      { return false }
func advise(b []byte) bool { return false }
func available() int64     { return 0 }
func freeHuge() int64      { return -1 }
