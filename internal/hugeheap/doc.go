// Package hugeheap lets a command that is about to load a large month into
// memory ask the kernel for transparent huge pages under the Go heap.
//
// On the machines gpubill is measured on, a first touch of a 4 KiB page
// costs 2–13 µs (virtual machines, page tables of their own): the what-if
// report of a 297,600-item month took 75,000 faults, 0.6 s of its 1.2 s
// as system time. Linux's default (transparent_hugepage=madvise) backs a
// range with 2 MiB pages only when asked, and the Go runtime maps its
// heap without asking. Grow asks for the part of the heap the load will
// fill: 300 MiB then cost 150 faults of 2 MiB instead.
//
// TouchFresh measures what a first touch costs the machine now, for the
// benchmarks: where the kernel hands memory it holds free back to the host
// (free page reporting under a hypervisor), memory free for a few seconds
// costs about 2 ms a MB to touch again, thirty times memory just freed.
//
// Nothing here changes what a program computes: the advice is a hint the
// kernel may ignore, and Grow does nothing where it cannot help (another
// mode than madvise, another OS, a heap already large).
package hugeheap
