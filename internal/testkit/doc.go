// Package testkit holds helpers shared by gpubill's tests; nothing outside
// _test.go files imports it.
package testkit
