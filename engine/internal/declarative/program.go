package declarative

import (
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"time"

	"github.com/opsbench/opsbench/engine/internal/netclient"
)

// program is a compiled workload: read-only once loaded, shared by every VU.
type program struct {
	baseURL  string
	requests []*request
	weighted bool
	pick     *weighted
	pools    []*pool
	// poolIndex maps a pool's name to its index in pools.
	poolIndex map[string]int
	setup     []*setupStep
	// setupVars are the names setup steps without forEach capture, by index.
	setupVars     []string
	setupVarIndex map[string]int

	thinkMin, thinkMax float64 // seconds; both 0: no think time
	timeout            time.Duration
	noConnectionReuse  bool
	reconnectEvery     int64
}

func (prog *program) allRequests() []*request {
	out := slices.Clone(prog.requests)
	for _, s := range prog.setup {
		out = append(out, s.request)
	}
	return out
}

type request struct {
	name, tag, method string
	path              *template
	// url and urlText are the whole URL when the path is constant (url nil if it does not parse).
	url     *url.URL
	urlText string
	body    *template // nil: no body
	// bodyBytes is the body when constant.
	bodyBytes []byte
	headers   []header
	// header holds the constant headers; headerClose the same with "Connection: close".
	header, headerClose http.Header
	dynamicHeaders      bool
	timeout             time.Duration
	// expect are the statuses expectStatus names (nil: none, k6's default 200-399 and no check).
	expect    []int
	expected  *netclient.ExpectedStatuses
	checkName string
}

type header struct {
	key   string // canonical
	value *template
}

type setupStep struct {
	request  *request
	forEach  int // pool index, -1: none
	captures []capture
}

type capture struct {
	name, selector string
	// index is the setup variable's index, or with forEach the pool's capture field index.
	index int
}

// ---- Templates.

type partKind uint8

const (
	partText partKind = iota
	partPool
	partSetup
	partEnv
	partRandomInt
	partRandomString
	partUUID
	partVU
	partIteration
	partTimestamp
)

type part struct {
	kind partKind
	text string // text; env: the variable's name
	// pool: the pool, and the field among its own (base) and captured fields, -1 when not one of them.
	pool, base, capture int
	index               int   // setup: the variable's index
	a, b                int64 // randomInt: min, max; randomString: length
}

type template struct {
	parts []part
	// constant: the template is text only (text).
	constant bool
	text     string
	// size is a guess of the rendered length, to allocate once.
	size int
}

// ---- Pools and key choice.

type choiceKind uint8

const (
	choiceUniform choiceKind = iota
	choiceSequential
	choiceZipf
)

type dimension struct {
	name         string
	size, stride int64
}

type pool struct {
	name   string
	size   int
	choice choiceKind
	zipfS  float64
	// fields are the rows' own fields; captures are those forEach setup steps add.
	fields, captures []string
	// dims: a generated pool; indexField is the index of the "index" field (-1 when a dimension has that name).
	dims       []dimension
	indexField int
	// rows: given rows, each value already as the script's string concatenation writes it.
	rows [][]string
}

func (p *pool) baseField(name string) int    { return slices.Index(p.fields, name) }
func (p *pool) captureField(name string) int { return slices.Index(p.captures, name) }

func (p *pool) addCapture(name string) int {
	if i := p.captureField(name); i >= 0 {
		return i
	}
	p.captures = append(p.captures, name)
	return len(p.captures) - 1
}

func (p *pool) fieldNames() []string {
	out := slices.Clone(p.fields)
	for _, c := range p.captures {
		if !slices.Contains(out, c) {
			out = append(out, c)
		}
	}
	return out
}

// appendField writes field f of row i (obDimensionRow's value for a generated pool).
func (p *pool) appendField(b []byte, i, f int) []byte {
	if p.dims == nil {
		return append(b, p.rows[i][f]...)
	}
	if f == p.indexField {
		return strconv.AppendInt(b, int64(i), 10)
	}
	d := &p.dims[f]
	return strconv.AppendInt(b, (int64(i)/d.stride)%d.size+1, 10)
}
