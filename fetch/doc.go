// Package fetch pulls a month of bill detail lines from the billing APIs of
// the Chinese clouds (腾讯云 DescribeBillDetail, 阿里云 BssOpenApi
// DescribeInstanceBill, 火山引擎 ListBillDetail, 华为云 BSS
// ListCustomerselfResourceRecords) and imports them into the ledger through the same
// format and row mapper as the vendor's exported CSV (ingest.ImportAPITable).
//
// One file per vendor client (tencentcloud.go, aliyun.go, volcengine.go,
// huaweicloud.go) and per signer (tc3.go: TC3-HMAC-SHA256; acsrpc.go: the
// Alibaba Cloud RPC signature v1.0, HMAC-SHA1; volcv4.go: 火山引擎
// HMAC-SHA256; sdkhmac.go: 华为云 SDK-HMAC-SHA256). Each fetched line
// carries the vendor's own line id in ledger.LineIDColumn, which evidence
// cites. client.go holds what the clients share: the endpoint,
// the per-request timeout, and the bounded retry with exponential back-off
// and jitter on throttling. credentials.go reads keys from the environment
// or a config file's [[account]] tables; a secret never leaves this package
// except as a request signature, and every error text is scrubbed of it.
//
// A fetch gathers every page of the month first and imports them in one
// transaction, so an error on any page (authentication, throttling beyond
// the bound, a response of the wrong shape) writes nothing. A month that is
// not final yet is imported as provisional and replaced by the next fetch of
// that month and account (fetch.go).
//
// instances.go, cvm.go, ecs.go, volcecs.go and huaweiecs.go list instances
// for gpubill watch (腾讯云 CVM, 阿里云 ECS and 火山引擎 ECS DescribeInstances,
// 华为云 ECS ListServersDetails) with the same signers, credentials and retry
// client.
//
// Package fetchtest holds the fake APIs the tests run against: they verify
// each request's signature the way the vendor documents it.
package fetch
