// Package watch is gpubill watch: it lists the instances of the clouds'
// instance APIs (through package fetch's clients), judges them against
// forgotten_instance's parameters and the platforms' release-after-stopping
// days, and sends each alert once through the notifiers, again only when it
// escalates.
//
// alert.go judges one poll (pure: instances, the state before, a clock);
// state.go keeps the state in the ledger (migration 0014) under the write
// lock, so that two watchers never send the same alert; notify.go holds the
// notifiers (--exec, 企业微信, 飞书, 钉钉 group robots); watch.go runs one
// poll end to end. ledger.go, idle_storage.go, balance.go and budget.go
// judge the ledger itself (bill lines, money flow, the config's
// [[budget]] tables) once per poll: storage billing for idle instances,
// low balances and budgets, for the platforms without an instance API
// too. Package watchtest holds a webhook sink that checks what
// each robot checks.
package watch
