package gocql_test

import (
	"context"
	"fmt"
	"net"
	"reflect"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	gocqlv1 "github.com/gocql/gocql"

	"github.com/cqlbridge/cqlbridge/compat/gocql"
	"github.com/cqlbridge/cqlbridge/cqlsim"
	"github.com/cqlbridge/cqlbridge/internal/cqltest"
)

// hostAccessors are the exported HostInfo methods that take no argument, in the order
// describeHost renders them.
var hostAccessors = []string{
	"String", "ConnectAddress", "BroadcastAddress", "ListenAddress", "RPCAddress", "PreferredIP", "Peer",
	"DataCenter", "Rack", "HostID", "Version", "Partitioner", "ClusterName", "Tokens", "Port",
	"State", "IsUp", "WorkLoad", "Graph", "DSEVersion", "HostnameAndPort", "ConnectAddressAndPort",
}

// describeHost renders every accessor of a gocql v1.7.0 or compat *HostInfo, one per line,
// after calling HostnameAndPort when materialize is set (it sets the host name String shows).
// Addresses show their byte length too (an IPv4 address in 16-byte form is not DeepEqual to
// its 4-byte form) and nil apart from empty.
func describeHost(h interface{}, materialize bool) string {
	rv := reflect.ValueOf(h)
	if rv.IsNil() {
		return "<nil host>"
	}
	if materialize {
		rv.MethodByName("HostnameAndPort").Call(nil)
	}
	var b strings.Builder
	for _, name := range hostAccessors {
		m := rv.MethodByName(name)
		if !m.IsValid() {
			fmt.Fprintf(&b, "%s: <missing>\n", name)
			continue
		}
		v := m.Call(nil)[0].Interface()
		switch x := v.(type) {
		case net.IP:
			if x == nil {
				fmt.Fprintf(&b, "%s: net.IP(nil)\n", name)
			} else {
				fmt.Fprintf(&b, "%s: %v (len %d)\n", name, x, len(x))
			}
		case []string:
			fmt.Fprintf(&b, "%s: %s\n", name, show(x))
		default:
			fmt.Fprintf(&b, "%s: %#v %v\n", name, v, v)
		}
	}
	return b.String()
}

// hostRecorder collects host descriptions by source ("HostFilter", "AddHost", "Pick", ...)
// and connect address. HostFilter keeps the first description of each host: the host as
// freshly read from the system tables, before the driver dials it (gocql v1.7.0 calls the
// filter again on hosts it has dialled and described already). The other sources keep the
// last one, taken after HostnameAndPort, which gocql calls when it dials a host: whether it
// has yet when the policy's AddHost runs is a race in gocql.
type hostRecorder struct {
	mu   sync.Mutex
	seen map[string]string
}

// record describes h, seen by source, under its connect address addr.
func (r *hostRecorder) record(source string, addr net.IP, h interface{}) {
	key := source + " " + addr.String()
	first := source == "HostFilter"
	if first {
		r.mu.Lock()
		_, done := r.seen[key]
		r.mu.Unlock()
		if done {
			return
		}
	}
	d := describeHost(h, !first)
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.seen == nil {
		r.seen = map[string]string{}
	}
	if _, done := r.seen[key]; first && done {
		return
	}
	r.seen[key] = d
}

// trace adds the descriptions to tr, sorted by source and address.
func (r *hostRecorder) trace(tr *trace) {
	r.mu.Lock()
	defer r.mu.Unlock()
	keys := make([]string, 0, len(r.seen))
	for k := range r.seen {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		tr.add(k, r.seen[k])
	}
}

// legacyHostPolicy records the hosts gocql v1.7.0 hands its policy.
type legacyHostPolicy struct {
	gocqlv1.HostSelectionPolicy
	rec *hostRecorder
}

func (p legacyHostPolicy) AddHost(h *gocqlv1.HostInfo) {
	p.rec.record("AddHost", h.ConnectAddress(), h)
	p.HostSelectionPolicy.AddHost(h)
}

func (p legacyHostPolicy) Pick(q gocqlv1.ExecutableQuery) gocqlv1.NextHost {
	next := p.HostSelectionPolicy.Pick(q)
	return func() gocqlv1.SelectedHost {
		sh := next()
		if sh != nil {
			p.rec.record("Pick", sh.Info().ConnectAddress(), sh.Info())
		}
		return sh
	}
}

// compatHostPolicy is legacyHostPolicy for compat.
type compatHostPolicy struct {
	gocql.HostSelectionPolicy
	rec *hostRecorder
}

func (p compatHostPolicy) AddHost(h *gocql.HostInfo) {
	p.rec.record("AddHost", h.ConnectAddress(), h)
	p.HostSelectionPolicy.AddHost(h)
}

func (p compatHostPolicy) Pick(q gocql.ExecutableQuery) gocql.NextHost {
	next := p.HostSelectionPolicy.Pick(q)
	return func() gocql.SelectedHost {
		sh := next()
		if sh != nil {
			p.rec.record("Pick", sh.Info().ConnectAddress(), sh.Info())
		}
		return sh
	}
}

// legacyHostObserver records ObservedQuery.Host and, for connections that opened,
// ObservedConnect.Host.
type legacyHostObserver struct{ rec *hostRecorder }

func (o legacyHostObserver) ObserveQuery(_ context.Context, q gocqlv1.ObservedQuery) {
	o.rec.record("ObservedQuery", q.Host.ConnectAddress(), q.Host)
}

func (o legacyHostObserver) ObserveConnect(c gocqlv1.ObservedConnect) {
	if c.Err == nil {
		o.rec.record("ObservedConnect", c.Host.ConnectAddress(), c.Host)
	}
}

// compatHostObserver is legacyHostObserver for compat.
type compatHostObserver struct{ rec *hostRecorder }

func (o compatHostObserver) ObserveQuery(_ context.Context, q gocql.ObservedQuery) {
	o.rec.record("ObservedQuery", q.Host.ConnectAddress(), q.Host)
}

// TestReviewHostInfo compares every HostInfo accessor as applications see it: in the
// HostFilter, in the host selection policy (AddHost and Pick), in ObservedQuery.Host and in
// Iter.Host, and ObservedConnect.Host (the last connection to each node). (gocql v1.7.0 has no
// Session.GetHosts.) One contact point: both
// drivers open their control connection on a contact point picked at random, and the node it
// is on is described from system.local (listen and broadcast addresses, partitioner, cluster
// name), the others from system.peers; on a cluster the other nodes are found from it.
func TestReviewHostInfo(t *testing.T) {
	hosts := cqltest.Hosts(t)
	runHostInfoDiff(t, hosts[:1])
}

// TestReviewHostInfoPeers is TestReviewHostInfo on a three-node cqlsim cluster, so that hosts
// read from system.peers_v2 are compared too.
func TestReviewHostInfoPeers(t *testing.T) {
	sim := cqlsim.StartT(t, cqlsim.Options{Nodes: 3})
	runHostInfoDiff(t, sim.Addrs()[:1])
}

// runHostInfoDiff connects gocql v1.7.0 and compat to hosts, runs queries enough for the
// round-robin policy to pick every node of a cluster of up to three, and compares the hosts
// each driver showed.
func runHostInfoDiff(t *testing.T, hosts []string) {
	var lt, ct trace
	{
		rec := &hostRecorder{}
		c := gocqlv1.NewCluster(hosts...)
		c.ProtoVersion = 4
		c.Timeout = 30 * time.Second
		c.HostFilter = gocqlv1.HostFilterFunc(func(h *gocqlv1.HostInfo) bool {
			rec.record("HostFilter", h.ConnectAddress(), h)
			return true
		})
		c.PoolConfig.HostSelectionPolicy = legacyHostPolicy{gocqlv1.RoundRobinHostPolicy(), rec}
		c.QueryObserver = legacyHostObserver{rec}
		c.ConnectObserver = legacyHostObserver{rec}
		s, err := c.CreateSession()
		if err != nil {
			t.Fatalf("gocql v1.7.0 CreateSession: %v", err)
		}
		defer s.Close()
		for i := 0; i < 9; i++ {
			it := s.Query("SELECT release_version FROM system.local").Iter()
			rec.record("Iter.Host", it.Host().ConnectAddress(), it.Host())
			if err := it.Close(); err != nil {
				t.Fatal(err)
			}
		}
		rec.trace(&lt)
	}
	{
		rec := &hostRecorder{}
		c := gocql.NewCluster(hosts...)
		c.ProtoVersion = 4
		c.Timeout = 30 * time.Second
		c.HostFilter = gocql.HostFilterFunc(func(h *gocql.HostInfo) bool {
			rec.record("HostFilter", h.ConnectAddress(), h)
			return true
		})
		c.PoolConfig.HostSelectionPolicy = compatHostPolicy{gocql.RoundRobinHostPolicy(), rec}
		c.QueryObserver = compatHostObserver{rec}
		c.ConnectObserver = compatHostObserver{rec}
		s, err := c.CreateSession()
		if err != nil {
			t.Fatalf("compat CreateSession: %v", err)
		}
		defer s.Close()
		for i := 0; i < 9; i++ {
			it := s.Query("SELECT release_version FROM system.local").Iter()
			rec.record("Iter.Host", it.Host().ConnectAddress(), it.Host())
			if err := it.Close(); err != nil {
				t.Fatal(err)
			}
		}
		rec.trace(&ct)
	}
	sameTrace(t, &lt, &ct)
}

// TestReviewHostInfoMethods checks that compat's HostInfo has exactly gocql v1.7.0's exported
// methods, with the same signatures (both packages are named gocql, so types print alike).
func TestReviewHostInfoMethods(t *testing.T) {
	methods := func(v interface{}) []string {
		rt := reflect.TypeOf(v)
		var out []string
		for i := 0; i < rt.NumMethod(); i++ {
			m := rt.Method(i)
			out = append(out, m.Name+" "+m.Type.String())
		}
		return out
	}
	var lt, ct trace
	lt.add("methods", methods(&gocqlv1.HostInfo{}))
	ct.add("methods", methods(&gocql.HostInfo{}))
	sameTrace(t, &lt, &ct)
}

// TestReviewHostInfoZeroValue compares the accessors of HostInfo values an application
// builds itself (policies' tests do): the zero value, and one with a connect address, host
// ID and version set through the exported setters. ConnectAddress is left out of the zero
// value, where gocql v1.7.0 panics ("no valid connect address") and compat returns nil.
func TestReviewHostInfoZeroValue(t *testing.T) {
	var lt, ct trace
	{
		h := &gocqlv1.HostInfo{}
		lt.add("zero", h.String(), h.ConnectAddressAndPort(), h.HostnameAndPort(), h.String(), h.IsUp(), h.Version())
		h = (&gocqlv1.HostInfo{}).SetConnectAddress(net.ParseIP("10.0.0.7"))
		h.SetHostID("id")
		lt.add("set", h.String(), h.ConnectAddress(), h.ConnectAddressAndPort(), h.HostID(), h.HostnameAndPort(), h.String())
		lt.add("equal", h.Equal(h), h.Equal((&gocqlv1.HostInfo{}).SetConnectAddress(net.ParseIP("10.0.0.7"))))
	}
	{
		h := &gocql.HostInfo{}
		ct.add("zero", h.String(), h.ConnectAddressAndPort(), h.HostnameAndPort(), h.String(), h.IsUp(), h.Version())
		h = (&gocql.HostInfo{}).SetConnectAddress(net.ParseIP("10.0.0.7"))
		h.SetHostID("id")
		ct.add("set", h.String(), h.ConnectAddress(), h.ConnectAddressAndPort(), h.HostID(), h.HostnameAndPort(), h.String())
		ct.add("equal", h.Equal(h), h.Equal((&gocql.HostInfo{}).SetConnectAddress(net.ParseIP("10.0.0.7"))))
	}
	sameTrace(t, &lt, &ct)
	if got := (&gocql.HostInfo{}).ConnectAddress(); got != nil {
		t.Errorf("compat zero HostInfo ConnectAddress = %v, want nil", got)
	}
}

// TestReviewHostInfoVersion compares how HostInfo.Version parses release_version strings,
// through the version type's exported Set and UnmarshalCQL methods.
func TestReviewHostInfoVersion(t *testing.T) {
	inputs := []string{
		"", "5.0.9", "4.1.3-SNAPSHOT", "5.0-beta1", "5.0.0-rc1", "4.0.11-1234", "v5.0.1", "3.11.4.5",
		"5", "5.x", "x.1.2", "5.1.x", "6.8.25-abcd", " 5.0.1", "5.0.1-SNAPSHOT-SNAPSHOT",
	}
	var lt, ct trace
	for _, in := range inputs {
		lv := (&gocqlv1.HostInfo{}).Version()
		lerr := lv.Set(in)
		lu := (&gocqlv1.HostInfo{}).Version()
		luerr := lu.UnmarshalCQL(nil, []byte(in))
		lt.add(in, lerr, fmt.Sprintf("%#v", lv), lv.String(), luerr, fmt.Sprintf("%#v", lu),
			lv.Before(5, 0, 1), lv.AtLeast(4, 0, 0))
		cv := (&gocql.HostInfo{}).Version()
		cerr := cv.Set(in)
		cu := (&gocql.HostInfo{}).Version()
		cuerr := cu.UnmarshalCQL(nil, []byte(in))
		ct.add(in, cerr, fmt.Sprintf("%#v", cv), cv.String(), cuerr, fmt.Sprintf("%#v", cu),
			cv.Before(5, 0, 1), cv.AtLeast(4, 0, 0))
	}
	sameTrace(t, &lt, &ct)
}

func (o compatHostObserver) ObserveConnect(c gocql.ObservedConnect) {
	if c.Err == nil {
		o.rec.record("ObservedConnect", c.Host.ConnectAddress(), c.Host)
	}
}
