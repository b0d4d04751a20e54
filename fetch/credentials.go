package fetch

import (
	"errors"
	"fmt"
	"os"
	"regexp"
	"sort"
	"strings"

	"github.com/BurntSushi/toml"
)

// Account is one set of API credentials for one cloud.
type Account struct {
	Name     string // the config's name, or "env" for the environment
	Provider string // tencentcloud | aliyun | volcengine | huaweicloud
	KeyID    string
	Endpoint string // "" = the vendor's public endpoint
	// Region is where gpubill watch lists instances ("" = the flag's or
	// the vendor's default); bills are not regional.
	Region string
	// DomainID (账号ID) and ProjectID are 华为云's: the account ID its global
	// services (BSS) want in X-Domain-Id, and the project of a region whose
	// ECS servers watch lists ("" = not configured).
	DomainID, ProjectID string
	// Source says where the keys came from, for messages: the environment
	// variables or the config file and account, never the secret.
	SourceZH, SourceEN string

	secret string
}

// Secret is the account's secret key (for signing only).
func (a Account) Secret() string { return a.secret }

// String never shows the secret.
func (a Account) String() string { return a.Provider + " account " + a.Name }

// GoString keeps the secret out of %#v too.
func (a Account) GoString() string { return a.String() }

// envNames are the variables the vendors' own CLIs and SDKs read.
var envNames = map[string][2]string{
	"tencentcloud": {"TENCENTCLOUD_SECRET_ID", "TENCENTCLOUD_SECRET_KEY"},
	"aliyun":       {"ALIBABA_CLOUD_ACCESS_KEY_ID", "ALIBABA_CLOUD_ACCESS_KEY_SECRET"},
	"volcengine":   {"VOLCENGINE_ACCESS_KEY", "VOLCENGINE_SECRET_KEY"},
	"huaweicloud":  {"HUAWEICLOUD_SDK_AK", "HUAWEICLOUD_SDK_SK"},
}

// huaweiIDNames are the variables of 华为云's account and project IDs, as
// its SDKs read them.
const (
	huaweiDomainEnv  = "HUAWEICLOUD_SDK_DOMAIN_ID"
	huaweiProjectEnv = "HUAWEICLOUD_SDK_PROJECT_ID"
)

// EnvNames are the environment variables of provider's key id and secret.
func EnvNames(provider string) (id, secret string) {
	n := envNames[provider]
	return n[0], n[1]
}

// Providers are the clouds fetch can pull from, sorted.
func Providers() []string {
	var out []string
	for p := range envNames {
		out = append(out, p)
	}
	sort.Strings(out)
	return out
}

// FromEnv reads the account of provider from the environment (getenv), and
// reports whether both variables are set.
func FromEnv(provider string, getenv func(string) string) (Account, bool) {
	n, ok := envNames[provider]
	if !ok {
		return Account{}, false
	}
	id, secret := strings.TrimSpace(getenv(n[0])), strings.TrimSpace(getenv(n[1]))
	if id == "" || secret == "" {
		return Account{}, false
	}
	a := Account{Name: "env", Provider: provider, KeyID: id, secret: secret,
		SourceZH: "环境变量 " + n[0] + " / " + n[1], SourceEN: "the environment variables " + n[0] + " / " + n[1]}
	if provider == "huaweicloud" {
		a.DomainID, a.ProjectID = strings.TrimSpace(getenv(huaweiDomainEnv)), strings.TrimSpace(getenv(huaweiProjectEnv))
	}
	return a, true
}

// accountFile is the part of the config file fetch reads.
type accountFile struct {
	Account []map[string]any `toml:"account"`
}

// accountKeys are the fields of an [[account]] table.
var accountKeys = []string{"name", "provider", "key_id", "secret", "endpoint", "region", "domain_id", "project_id"}

// LoadAccounts reads the [[account]] tables of the config file at path:
//
//	[[account]]
//	name = "main"
//	provider = "tencentcloud"
//	key_id = "AKID…"
//	secret = "…"            # or leave it out and set the vendor's variable
//	endpoint = "https://…"  # optional
//
// A file that holds a secret must be readable by its owner only (mode
// 0600): any other mode is refused, saying why. An account without a secret
// takes the key id and secret from the vendor's environment variables.
func LoadAccounts(path string, getenv func(string) string) ([]Account, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("config %s: %w", path, err)
	}
	var doc accountFile
	if _, err := toml.Decode(string(b), &doc); err != nil {
		// A parse error may quote the text around it: a secret on that
		// line must not reach the message.
		var pe toml.ParseError
		if errors.As(err, &pe) {
			return nil, errors.New(scrubSecrets(fmt.Sprintf("config %s: line %d, column %d: %s", path, pe.Position.Line, pe.Position.Col, pe.Message), b))
		}
		return nil, errors.New(scrubSecrets(fmt.Sprintf("config %s: %v", path, err), b))
	}
	var out []Account
	seen := map[string]bool{}
	holdsSecret := false
	for i, e := range doc.Account {
		where := fmt.Sprintf("config %s: [[account]] %d", path, i+1)
		str := func(k string) (string, error) {
			v, ok := e[k]
			if !ok {
				return "", nil
			}
			s, ok := v.(string)
			if !ok {
				return "", fmt.Errorf("%s: %s must be a string", where, k)
			}
			return strings.TrimSpace(s), nil
		}
		for k := range e {
			known := false
			for _, a := range accountKeys {
				known = known || k == a
			}
			if !known {
				return nil, fmt.Errorf("%s: unknown key %s (known: %s)", where, k, strings.Join(accountKeys, ", "))
			}
		}
		var a Account
		var err error
		if a.Name, err = str("name"); err != nil {
			return nil, err
		}
		if a.Provider, err = str("provider"); err != nil {
			return nil, err
		}
		if a.KeyID, err = str("key_id"); err != nil {
			return nil, err
		}
		if a.secret, err = str("secret"); err != nil {
			return nil, err
		}
		if a.Endpoint, err = str("endpoint"); err != nil {
			return nil, err
		}
		if a.Region, err = str("region"); err != nil {
			return nil, err
		}
		if a.DomainID, err = str("domain_id"); err != nil {
			return nil, err
		}
		if a.ProjectID, err = str("project_id"); err != nil {
			return nil, err
		}
		if a.Name == "" {
			return nil, fmt.Errorf("%s: name is missing", where)
		}
		where = fmt.Sprintf("config %s: [[account]] %s", path, a.Name)
		if seen[a.Name] {
			return nil, fmt.Errorf("%s: the name is used twice", where)
		}
		seen[a.Name] = true
		n, ok := envNames[a.Provider]
		if !ok {
			return nil, fmt.Errorf("%s: provider %q: want one of %s", where, a.Provider, strings.Join(Providers(), ", "))
		}
		if a.secret != "" {
			holdsSecret = true
			if a.KeyID == "" {
				return nil, fmt.Errorf("%s: secret is set but key_id is missing", where)
			}
			a.SourceZH = fmt.Sprintf("配置文件 %s 中 [[account]] %s 的 key_id / secret", path, a.Name)
			a.SourceEN = fmt.Sprintf("key_id / secret of [[account]] %s in %s", a.Name, path)
		} else {
			env, ok := FromEnv(a.Provider, getenv)
			if !ok {
				return nil, fmt.Errorf("%s: no secret in the file and %s / %s are not set", where, n[0], n[1])
			}
			if a.KeyID != "" && a.KeyID != env.KeyID {
				return nil, fmt.Errorf("%s: key_id differs from %s; leave key_id out to use the environment's keys", where, n[0])
			}
			a.KeyID, a.secret, a.SourceZH, a.SourceEN = env.KeyID, env.secret, env.SourceZH, env.SourceEN
			if a.DomainID == "" {
				a.DomainID = env.DomainID
			}
			if a.ProjectID == "" {
				a.ProjectID = env.ProjectID
			}
		}
		out = append(out, a)
	}
	if holdsSecret {
		if err := checkPrivate(path); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// secretLine finds the value of a secret key in a config text, however
// broken the line.
var secretLine = regexp.MustCompile(`(?m)^\s*secret\s*=\s*["']?([^"'\r\n]*)`)

// scrubSecrets removes from msg every secret value written in text.
func scrubSecrets(msg string, text []byte) string {
	for _, m := range secretLine.FindAllSubmatch(text, -1) {
		if v := strings.TrimSpace(string(m[1])); len(v) >= 4 {
			msg = strings.ReplaceAll(msg, v, "***")
		}
	}
	return msg
}

// checkPrivate refuses a file that others may read or write.
func checkPrivate(path string) error {
	st, err := os.Stat(path)
	if err != nil {
		return fmt.Errorf("config %s: %w", path, err)
	}
	if m := st.Mode().Perm(); m&0o077 != 0 {
		return &Error{Kind: KindUsage,
			ZH: fmt.Sprintf("配置文件 %s 含有密钥，但权限为 %04o（同组或其他用户可读写）：请执行 chmod 600 %s 后重试", path, m, path),
			EN: fmt.Sprintf("config %s holds a secret but its mode is %04o (group or others may read or write it): run chmod 600 %s and retry", path, m, path)}
	}
	return nil
}
