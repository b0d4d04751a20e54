//go:build race

package hugeheap

// raceEnabled: the race detector maps and clears shadow memory for each
// allocation, which counts in the page faults a test sees.
const raceEnabled = true
