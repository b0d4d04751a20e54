// Package guard is gpubill guard: it runs on the rented machine itself
// (AutoDL, 恒源云, 矩池云, GpuGeek … have no public instance API, but the
// user can run a program there), samples GPU utilisation through the
// nvidia-smi found on PATH, optionally a watched process, and the wall
// clock; when the GPUs have been idle for the given time, or the maximum
// is past, it warns through package watch's notifiers and, after a grace
// period, runs the shutdown command the user gave (by default it only
// warns). It logs what it did and appends each event to a JSON-lines
// marker file that an audit can read later.
//
// The probes are commands found on PATH (nvidia-smi, the user's shutdown
// command), so that tests put fake executables there; the clock and the
// sleep are injectable.
package guard
