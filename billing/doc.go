// Package billing holds reference knowledge about how platforms bill that
// several parts of gpubill share. Today: which GPU a cloud instance family
// carries (GPUModelOf), from an embedded table whose every entry names the
// vendor's instance-type page.
package billing
