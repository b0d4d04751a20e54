package ingest

import (
	"embed"
	"fmt"
	"path"
	"slices"
	"strings"
	"sync"

	"github.com/gpubill/gpubill/platform"
)

// The built-in profiles: copies of the console tables of the six GPU rental
// platforms (收支明细 and 订单/费用明细 pages), one TOML file per platform and
// page in profiles/, written in the same language as a user's profile so a
// user can copy one (`gpubill formats profile ID`).
//
// The copies of one page look alike on every platform, so the header cannot
// tell them apart. The profiles of one page therefore form a family that is
// registered as one format ("gpu-console-flow", "gpu-console-orders"): it is
// detected by the header, then the platform is taken from --provider or from
// a platform name in the file name, and the rows are read with that
// platform's profile (its own kind and type rules). No platform: the file is
// refused, never guessed.

//go:embed profiles/*.toml
var builtinProfileFS embed.FS

// ProfileSource is a built-in profile as shipped.
type ProfileSource struct {
	ID     string
	Family string // the format id it is detected under
	File   string // profiles/ID.toml
	Data   []byte
	*Profile
}

// profileFamily groups the built-in profiles of one console page.
type profileFamily struct {
	id, suffix     string
	nameZH, nameEN string
	target         string
	rank           int
	members        map[string]*Profile // by platform slug
	order          []string
}

var profileFamilies = []*profileFamily{
	{id: "gpu-console-flow", suffix: "-flow", nameZH: "GPU 租赁平台控制台：收支明细（复制的表格）",
		nameEN: "GPU rental console: money flow (copied table)", target: TargetTransactions, rank: 60},
	{id: "gpu-console-orders", suffix: "-orders", nameZH: "GPU 租赁平台控制台：订单/费用明细（复制的表格）",
		nameEN: "GPU rental console: orders and charges (copied table)", target: TargetLineItems, rank: 61},
}

var builtinProfiles []ProfileSource

// loadBuiltin parses the embedded profiles and registers their families,
// once, at the first use of the registry or the profiles (registered,
// builtin): not at start, where it took a dozen ms of every command, most
// of which never read a bill.
var loadBuiltin = sync.OnceFunc(func() {
	entries, err := builtinProfileFS.ReadDir("profiles")
	if err != nil {
		panic(err) // embedded at build time
	}
	for _, e := range entries {
		file := path.Join("profiles", e.Name())
		data, err := builtinProfileFS.ReadFile(file)
		if err != nil {
			panic(err)
		}
		p, err := ParseProfile("builtin:"+e.Name(), data)
		if err != nil {
			panic(err) // a broken embedded profile is a build error; TestBuiltinProfiles loads them all
		}
		ps := ProfileSource{ID: p.ID, File: file, Data: data, Profile: p}
		for _, fam := range profileFamilies {
			if !strings.HasSuffix(p.ID, fam.suffix) || len(p.Accept) != 1 || p.Target != fam.target {
				continue
			}
			if fam.members == nil {
				fam.members = map[string]*Profile{}
			}
			fam.members[p.Accept[0]] = p
			fam.order = append(fam.order, p.Accept[0])
			ps.Family = fam.id
		}
		builtinProfiles = append(builtinProfiles, ps)
	}
	for _, fam := range profileFamilies {
		if len(fam.members) > 0 {
			registerFormat(fam.format(), fam.rank)
		}
	}
})

// builtin is builtinProfiles, loaded.
func builtin() []ProfileSource {
	loadBuiltin()
	return builtinProfiles
}

// BuiltinProfiles lists the embedded profiles, by id.
func BuiltinProfiles() []ProfileSource {
	return slices.Clone(builtin())
}

// BuiltinProfile returns the embedded profile with the given id.
func BuiltinProfile(id string) (ProfileSource, bool) {
	for _, p := range builtin() {
		if p.ID == id {
			return p, true
		}
	}
	return ProfileSource{}, false
}

// format is the registered format of a family: the union of its members'
// columns; a column is required when every member requires it.
func (fam *profileFamily) format() *Format {
	var cols []Column
	var ids []string
	for _, slug := range fam.order {
		m := fam.members[slug].format
		ids = append(ids, m.ID)
		for _, c := range m.Columns {
			k := slices.IndexFunc(cols, func(x Column) bool { return x.Field == c.Field })
			if k < 0 {
				cols = append(cols, Column{Field: c.Field, Headers: slices.Clone(c.Headers), Required: c.Required, RawOnly: c.RawOnly})
				continue
			}
			for _, h := range c.Headers {
				if !slices.Contains(cols[k].Headers, h) {
					cols[k].Headers = append(cols[k].Headers, h)
				}
			}
			cols[k].Required = cols[k].Required && c.Required
		}
	}
	var req []string
	for _, c := range cols {
		if c.Required {
			req = append(req, c.Headers[0])
		}
	}
	var names []string
	for _, slug := range fam.order {
		names = append(names, platform.Name(slug, "zh")+"/"+slug)
	}
	f := &Format{ID: fam.id, Version: "1", NameZH: fam.nameZH, NameEN: fam.nameEN, Confidence: ConfidenceGuess,
		Target: fam.target, Columns: cols,
		DetectZH: "猜测的控制台列名：表头含 " + strings.Join(req, "、") + "；平台取自 --provider 或文件名（" +
			strings.Join(names, "、") + "），都没有则拒绝导入；按平台的内置 profile 读取：" + strings.Join(ids, ", "),
		DetectEN: "guessed console column names: header holds " + strings.Join(req, ", ") +
			"; platform from --provider or the file name (" + strings.Join(names, ", ") +
			"), refused when neither tells; read with the platform's built-in profile: " + strings.Join(ids, ", "),
	}
	// A header with a platform column is no console copy: it belongs to the
	// gpubill template (whose near-miss message is the better one) or to a
	// user profile.
	f.match = func(b *binding) bool { return !hasPlatformColumn(b.header) }
	member := func(b *binding, env *mapEnv) (*Format, *binding, error) {
		slug, err := sourceProvider(env, fam.id, nil)
		if err != nil {
			return nil, nil, err
		}
		p := fam.members[slug]
		if p == nil {
			return nil, nil, &InputError{File: env.path, Msg: fmt.Sprintf(
				"format %s has no profile for platform %s (only %s): use the gpubill template or --profile FILE",
				fam.id, slug, strings.Join(fam.order, ", "))}
		}
		mb := bind(p.format, b.header)
		if !mb.ok() {
			var missing []string
			for ci, c := range p.format.Columns {
				if c.Required && mb.pos[ci] < 0 {
					missing = append(missing, c.Headers[0])
				}
			}
			return nil, nil, &InputError{File: env.path, Msg: fmt.Sprintf("profile %s lacks the columns %s", p.ID, strings.Join(missing, ", "))}
		}
		return p.format, mb, nil
	}
	if fam.target == TargetTransactions {
		f.DedupeKey = "hash of provider, account, time, type, amount, currency, balance, reference, description + occurrence number in the file"
		f.txs = func(b *binding, env *mapEnv) (txMapper, error) {
			m, mb, err := member(b, env)
			if err != nil {
				return nil, err
			}
			return m.txs(mb, env)
		}
	} else {
		f.DedupeKey = "hash of provider, account, resource_id, kind, charge category, charge period, quantity and unit, unit price, amounts, currency, description + occurrence number in the file"
		f.match = func(b *binding) bool {
			return (b.idx("start") >= 0 || b.idx("time") >= 0) && !hasPlatformColumn(b.header)
		}
		f.lines = func(b *binding, env *mapEnv) (lineMapper, error) {
			m, mb, err := member(b, env)
			if err != nil {
				return nil, err
			}
			return m.lines(mb, env)
		}
	}
	return f
}

// hasPlatformColumn reports a header that names the platform per row (the
// gpubill template's 平台 column, in any of its spellings).
func hasPlatformColumn(header []string) bool {
	b := bind(templateFlowFormat, header)
	return b.idx("provider") >= 0
}
