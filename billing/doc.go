// Package billing holds reference knowledge about how platforms bill that
// several parts of gpubill share. Today: which GPU a cloud instance family
// carries (GPUModelOf), from an embedded table whose every entry names the
// vendor's instance-type page; and the replay catalog (rates.json, Rates):
// storage, traffic and seat prices, package and spot terms, GPUs not
// offered and GPU equivalents, each entry with its source, the date it was
// seen and a confidence.
package billing
