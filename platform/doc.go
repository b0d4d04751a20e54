// Package platform names the platforms gpubill knows: their slugs (the
// provider column of the ledger), display names in Chinese and English, the
// spellings bills and payees use for them, and the order reports list them
// in. Providers that are not platforms of DESIGN.md (FOCUS providers, a
// profile's own slug) get a display name too.
package platform
