// Package mdtext makes text from bills and APIs safe for one line of
// output: control characters become spaces, and in markdown (the reports'
// md format, the chat robots' alerts) it stays text, never markup.
package mdtext
