package gocql

import (
	"errors"
	"fmt"
	"net"
	"net/netip"
	"strconv"
	"strings"
	"sync"

	"github.com/cqlbridge/cqlbridge/native"
)

// nodeState is whether a host is up or down.
type nodeState int32

// The states a host can be in.
const (
	NodeUp nodeState = iota
	NodeDown
)

func (s nodeState) String() string {
	switch s {
	case NodeUp:
		return "UP"
	case NodeDown:
		return "DOWN"
	}
	return "UNKNOWN_" + strconv.Itoa(int(s))
}

// cassVersion is a Cassandra release version as reported in system.local.release_version.
type cassVersion struct {
	Major, Minor, Patch int
}

// Set parses a version such as "5.0.9" or "4.1.3-SNAPSHOT"; an empty string changes nothing.
// It parses as gocql v1.7.0 does (see parse).
func (c *cassVersion) Set(v string) error {
	if v == "" {
		return nil
	}
	return c.parse(v)
}

// UnmarshalCQL parses a version stored as text.
func (c *cassVersion) UnmarshalCQL(_ TypeInfo, data []byte) error {
	return c.parse(string(data))
}

// parse reads major.minor[.patch] as gocql v1.7.0 does: one "-SNAPSHOT" suffix and one "v"
// prefix are dropped, parts after the third are ignored, and the components are assigned
// in order, so a component that is not a number becomes 0, leaves the later ones unchanged
// and makes parse return an error ("4.0.11-1234" is 4.0.0; "5.x" is 5.0).
func (c *cassVersion) parse(v string) error {
	s := strings.TrimPrefix(strings.TrimSuffix(v, "-SNAPSHOT"), "v")
	parts := strings.Split(s, ".")
	if len(parts) < 2 {
		return fmt.Errorf("invalid version string: %s", v)
	}
	names := [3]string{"major", "minor", "patch"}
	dst := [3]*int{&c.Major, &c.Minor, &c.Patch}
	for i := 0; i < len(parts) && i < 3; i++ {
		n, err := strconv.Atoi(parts[i])
		*dst[i] = n
		if err != nil {
			return fmt.Errorf("invalid %s version %v: %v", names[i], parts[i], err)
		}
	}
	return nil
}

// Before reports whether the version is older than major.minor.patch.
func (c cassVersion) Before(major, minor, patch int) bool {
	if c.Major != major {
		return c.Major < major
	}
	if c.Minor != minor {
		return c.Minor < minor
	}
	return c.Patch < patch
}

// AtLeast reports whether the version is major.minor.patch or newer.
func (c cassVersion) AtLeast(major, minor, patch int) bool {
	return !c.Before(major, minor, patch)
}

func (c cassVersion) String() string {
	return fmt.Sprintf("v%d.%d.%d", c.Major, c.Minor, c.Patch)
}

// HostInfo describes one node of the cluster as read from system.local and system.peers.
// It is safe for concurrent use.
type HostInfo struct {
	mu               sync.RWMutex
	nativeAddr       string // the native core's address of the node (host:port), immutable
	hostname         string
	peer             net.IP
	broadcastAddress net.IP
	listenAddress    net.IP
	rpcAddress       net.IP
	preferredIP      net.IP
	connectAddress   net.IP
	port             int
	dataCenter       string
	rack             string
	hostID           string
	workload         string
	graph            bool
	dseVersion       string
	partitioner      string
	clusterName      string
	version          cassVersion
	state            nodeState
	tokens           []string
}

// Equal reports whether both describe the same node (same connect address and port).
func (h *HostInfo) Equal(host *HostInfo) bool {
	if h == host {
		return true
	}
	if h == nil || host == nil {
		return false
	}
	return h.ConnectAddress().Equal(host.ConnectAddress()) && h.Port() == host.Port()
}

// Peer is the address the node was discovered under (system.peers.peer).
func (h *HostInfo) Peer() net.IP {
	h.mu.RLock()
	defer h.mu.RUnlock()
	return h.peer
}

// ConnectAddress is the address the driver connects to: the explicitly set connect address,
// else the RPC address, the preferred IP, the broadcast address or the peer address, in
// that order (the first one that is set and not unspecified). It returns nil when none is;
// gocql v1.7.0 panics then.
func (h *HostInfo) ConnectAddress() net.IP {
	h.mu.RLock()
	defer h.mu.RUnlock()
	if ip, source := h.connectAddressLocked(); source != "invalid" {
		return ip
	}
	return nil
}

// connectAddressLocked returns the connect address (see ConnectAddress) and the name of the
// field it comes from, as gocql's String reports it, or 0.0.0.0 and "invalid" when no field
// holds a usable address. h.mu is held.
func (h *HostInfo) connectAddressLocked() (net.IP, string) {
	for _, c := range []struct {
		ip     net.IP
		source string
	}{
		// "rpc_adress" is gocql v1.7.0's spelling, which String shows.
		{h.connectAddress, "connect_address"}, {h.rpcAddress, "rpc_adress"}, {h.preferredIP, "preferred_ip"},
		{h.broadcastAddress, "broadcast_address"}, {h.peer, "peer"},
	} {
		if c.ip != nil && !c.ip.IsUnspecified() {
			return c.ip, c.source
		}
	}
	return net.IPv4zero, "invalid"
}

// SetConnectAddress overrides the address the driver connects to and returns h.
func (h *HostInfo) SetConnectAddress(address net.IP) *HostInfo {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.connectAddress = address
	return h
}

// BroadcastAddress is system.local/peers broadcast_address.
func (h *HostInfo) BroadcastAddress() net.IP {
	h.mu.RLock()
	defer h.mu.RUnlock()
	return h.broadcastAddress
}

// ListenAddress is system.local listen_address.
func (h *HostInfo) ListenAddress() net.IP {
	h.mu.RLock()
	defer h.mu.RUnlock()
	return h.listenAddress
}

// RPCAddress is system.local/peers rpc_address.
func (h *HostInfo) RPCAddress() net.IP {
	h.mu.RLock()
	defer h.mu.RUnlock()
	return h.rpcAddress
}

// PreferredIP is system.peers preferred_ip.
func (h *HostInfo) PreferredIP() net.IP {
	h.mu.RLock()
	defer h.mu.RUnlock()
	return h.preferredIP
}

// DataCenter is the node's data centre.
func (h *HostInfo) DataCenter() string {
	h.mu.RLock()
	defer h.mu.RUnlock()
	return h.dataCenter
}

// Rack is the node's rack.
func (h *HostInfo) Rack() string {
	h.mu.RLock()
	defer h.mu.RUnlock()
	return h.rack
}

// HostID is the node's host_id as a UUID string.
func (h *HostInfo) HostID() string {
	h.mu.RLock()
	defer h.mu.RUnlock()
	return h.hostID
}

// SetHostID sets the host id.
func (h *HostInfo) SetHostID(hostID string) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.hostID = hostID
}

// WorkLoad is the DSE workload, empty on Apache Cassandra.
func (h *HostInfo) WorkLoad() string {
	h.mu.RLock()
	defer h.mu.RUnlock()
	return h.workload
}

// Graph reports whether DSE graph is enabled on the node.
func (h *HostInfo) Graph() bool {
	h.mu.RLock()
	defer h.mu.RUnlock()
	return h.graph
}

// DSEVersion is the DSE version, empty on Apache Cassandra.
func (h *HostInfo) DSEVersion() string {
	h.mu.RLock()
	defer h.mu.RUnlock()
	return h.dseVersion
}

// Partitioner is the cluster's partitioner class.
func (h *HostInfo) Partitioner() string {
	h.mu.RLock()
	defer h.mu.RUnlock()
	return h.partitioner
}

// ClusterName is the cluster name (system.local only).
func (h *HostInfo) ClusterName() string {
	h.mu.RLock()
	defer h.mu.RUnlock()
	return h.clusterName
}

// Version is the node's Cassandra release version.
func (h *HostInfo) Version() cassVersion {
	h.mu.RLock()
	defer h.mu.RUnlock()
	return h.version
}

// State is whether the driver considers the node up or down.
func (h *HostInfo) State() nodeState {
	h.mu.RLock()
	defer h.mu.RUnlock()
	return h.state
}

// IsUp reports whether the node is considered up.
func (h *HostInfo) IsUp() bool {
	return h != nil && h.State() == NodeUp
}

// Tokens are the node's ring tokens as strings.
func (h *HostInfo) Tokens() []string {
	h.mu.RLock()
	defer h.mu.RUnlock()
	return h.tokens
}

// Port is the CQL port the driver connects to.
func (h *HostInfo) Port() int {
	h.mu.RLock()
	defer h.mu.RUnlock()
	return h.port
}

// HostnameAndPort is the host name and port joined as host:port. As in gocql v1.7.0, a host
// without a host name takes its connect address (0.0.0.0 when it has none) as its host name
// on the first call, which String shows from then on.
func (h *HostInfo) HostnameAndPort() string {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.hostname == "" {
		ip, _ := h.connectAddressLocked()
		h.hostname = ip.String()
	}
	return net.JoinHostPort(h.hostname, strconv.Itoa(h.port))
}

// ConnectAddressAndPort is the connect address (0.0.0.0 when the host has none) and port
// joined as host:port.
func (h *HostInfo) ConnectAddressAndPort() string {
	h.mu.RLock()
	defer h.mu.RUnlock()
	ip, _ := h.connectAddressLocked()
	return net.JoinHostPort(ip.String(), strconv.Itoa(h.port))
}

// dialAddr is the address requests are pinned to: the native core's address of the node, or
// the connect address and port for hosts the core does not know.
func (h *HostInfo) dialAddr() string {
	if h.nativeAddr != "" {
		return h.nativeAddr
	}
	return h.ConnectAddressAndPort()
}

// String describes the host for logs, in gocql v1.7.0's format.
func (h *HostInfo) String() string {
	if h == nil {
		return "[HostInfo nil]"
	}
	h.mu.RLock()
	defer h.mu.RUnlock()
	ip, source := h.connectAddressLocked()
	return fmt.Sprintf("[HostInfo hostname=%q connectAddress=%q peer=%q rpc_address=%q broadcast_address=%q "+
		"preferred_ip=%q connect_addr=%q connect_addr_source=%q "+
		"port=%d data_centre=%q rack=%q host_id=%q version=%q state=%s num_tokens=%d]",
		h.hostname, h.connectAddress, h.peer, h.rpcAddress, h.broadcastAddress, h.preferredIP,
		ip, source,
		h.port, h.dataCenter, h.rack, h.hostID, h.version, h.state, len(h.tokens))
}

// ipOf converts a native address to the form gocql v1.7.0 gives (net.ParseIP's: 16 bytes,
// IPv4 addresses mapped), nil for the zero Addr.
func ipOf(a netip.Addr) net.IP {
	if !a.IsValid() {
		return nil
	}
	b := a.Unmap().As16()
	return net.IP(b[:])
}

// discoveredHostInfo describes a node as gocql v1.7.0 builds a host from a row of
// system.local or system.peers(_v2) (hostInfoFromMap): up (the zero state), no host name yet,
// the columns the row has, and the dial address and port after address translation. Rows of
// system.peers (a valid h.Peer) have no partitioner, nor do gocql's hosts read from them,
// whereas the native core gives peers the control node's. This is the host HostFilter sees.
func discoveredHostInfo(h native.Host, defaultPort int) *HostInfo {
	hi := &HostInfo{
		nativeAddr:       h.Addr,
		peer:             ipOf(h.Peer),
		broadcastAddress: ipOf(h.BroadcastAddress),
		listenAddress:    ipOf(h.ListenAddress),
		rpcAddress:       ipOf(h.RPCAddress),
		preferredIP:      ipOf(h.PreferredIP),
		port:             defaultPort,
		dataCenter:       h.DataCenter,
		rack:             h.Rack,
		hostID:           h.HostID,
		workload:         h.Workload,
		graph:            h.Graph,
		dseVersion:       h.DSEVersion,
		partitioner:      h.Partitioner,
		clusterName:      h.ClusterName,
		state:            NodeUp,
		tokens:           h.Tokens,
	}
	if h.Peer.IsValid() {
		hi.partitioner = ""
	}
	_ = hi.version.Set(h.ReleaseVersion)
	if host, p, err := net.SplitHostPort(h.Addr); err == nil {
		hi.connectAddress = net.ParseIP(host)
		if n, err := strconv.Atoi(p); err == nil {
			hi.port = n
		}
	}
	if hi.connectAddress == nil {
		// A contact point given by name: gocql connects to the address the name resolved
		// to, which the core does not report; the node's own address stands in for it.
		hi.connectAddress, _ = hi.connectAddressLocked()
		if hi.connectAddress.IsUnspecified() {
			hi.connectAddress = nil
		}
	}
	return hi
}

// pooledHostInfo describes a node the session keeps a pool for, as gocql v1.7.0's ring host
// looks once the driver has dialled it: discoveredHostInfo with the host name set (gocql
// sets it on dialling) and the state of the node's pool.
func pooledHostInfo(h native.Host, defaultPort int) *HostInfo {
	hi := discoveredHostInfo(h, defaultPort)
	if ip, source := hi.connectAddressLocked(); source != "invalid" {
		hi.hostname = ip.String()
	} else if host, _, err := net.SplitHostPort(h.Addr); err == nil {
		hi.hostname = host // a node known only by a name (DisablePeerDiscovery)
	}
	if !h.Up {
		hi.state = NodeDown
	}
	return hi
}

// contactHostInfo describes a contact point as gocql v1.7.0 does when DisableInitialHostLookup
// keeps it from reading the system tables: the address dialled, its port and the host it was
// given as in ClusterConfig.Hosts (its address when the native core does not know the
// name), up or down as the native core sees it, and nothing the system tables tell (no data
// centre, rack, version, tokens or partitioner), even for the node the native core read
// system.local from. The host id is left to the session, which makes one up as gocql does.
func contactHostInfo(h native.Host, cfg *ClusterConfig) *HostInfo {
	host, p, err := net.SplitHostPort(h.Addr)
	if err != nil {
		host = h.Addr
	}
	port, _ := strconv.Atoi(p)
	hi := &HostInfo{hostname: host, connectAddress: net.ParseIP(host), port: port, state: NodeUp}
	if name := cfg.contacts.name(h.Addr); name != "" {
		hi.hostname = name
	}
	if !h.Up {
		hi.state = NodeDown
	}
	return hi
}

// refreshFrom copies what a topology refresh read (fresh, from pooledHostInfo for the same
// node) into h, keeping h's host name, connect address and port, which identify it.
func (h *HostInfo) refreshFrom(fresh *HostInfo) {
	if h == fresh {
		return
	}
	fresh.mu.RLock()
	defer fresh.mu.RUnlock()
	h.mu.Lock()
	defer h.mu.Unlock()
	h.peer, h.broadcastAddress, h.listenAddress = fresh.peer, fresh.broadcastAddress, fresh.listenAddress
	h.rpcAddress, h.preferredIP = fresh.rpcAddress, fresh.preferredIP
	h.dataCenter, h.rack, h.hostID, h.tokens = fresh.dataCenter, fresh.rack, fresh.hostID, fresh.tokens
	h.workload, h.graph, h.dseVersion = fresh.workload, fresh.graph, fresh.dseVersion
	h.partitioner, h.clusterName, h.version, h.state = fresh.partitioner, fresh.clusterName, fresh.version, fresh.state
}

// HostFilter decides which discovered hosts the driver connects to.
type HostFilter interface {
	// Accept is called when a host is discovered; returning true adds it to the pools.
	Accept(host *HostInfo) bool
}

// HostFilterFunc adapts a function to HostFilter.
type HostFilterFunc func(host *HostInfo) bool

// Accept calls fn(host).
func (fn HostFilterFunc) Accept(host *HostInfo) bool { return fn(host) }

// AcceptAllFilter accepts every host.
func AcceptAllFilter() HostFilter {
	return HostFilterFunc(func(*HostInfo) bool { return true })
}

// DenyAllFilter rejects every host.
func DenyAllFilter() HostFilter {
	return HostFilterFunc(func(*HostInfo) bool { return false })
}

// DataCentreHostFilter accepts only hosts in the given data centre.
func DataCentreHostFilter(dataCentre string) HostFilter {
	return HostFilterFunc(func(h *HostInfo) bool { return h.DataCenter() == dataCentre })
}

// WhiteListHostFilter accepts only hosts whose connect address is one of hosts (host or
// host:port; names are resolved once, when the filter is built). As in gocql v1.7.0, a name
// the resolver does not know (a *net.DNSError) is skipped. When no host is left, a port does
// not parse or a name resolves to no address, gocql v1.7.0 panics here; the filter returned
// then accepts no host, and CreateSession with it fails with gocql's panic message
// (docs/deviations.md G72).
func WhiteListHostFilter(hosts ...string) HostFilter {
	f := &whiteListFilter{}
	resolved := 0
	for _, h := range hosts {
		ips, err := whiteListIPs(h)
		if err != nil {
			if _, ok := err.(*net.DNSError); ok {
				continue
			}
			f.err = fmt.Errorf("unable to lookup host info from address: %w", err)
			return f
		}
		resolved++
		f.allowed = append(f.allowed, ips...)
	}
	if resolved == 0 {
		f.allowed, f.err = nil, errors.New("unable to lookup host info from address: failed to resolve any of the provided hostnames")
	}
	return f
}

// whiteListFilter is the filter WhiteListHostFilter builds. err, when set, says why its hosts
// could not be resolved: the filter then accepts no host, and CreateSession fails with err.
type whiteListFilter struct {
	allowed []net.IP
	err     error
}

// Accept reports whether h's connect address is one of the filter's addresses.
func (f *whiteListFilter) Accept(h *HostInfo) bool {
	addr := h.ConnectAddress()
	for _, ip := range f.allowed {
		if ip.Equal(addr) {
			return true
		}
	}
	return false
}

// whiteListIPs returns the addresses one host of WhiteListHostFilter stands for, as gocql
// v1.7.0 resolves it: an IP address is itself; a name is looked up (only its IPv4 addresses,
// when it has any, with GOCQL_HOST_LOOKUP_PREFER_V4=true); a port that does not parse is an
// error.
func whiteListIPs(addr string) ([]net.IP, error) {
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		host = addr
	} else if _, err := strconv.Atoi(port); err != nil {
		return nil, err
	}
	if ip := net.ParseIP(host); ip != nil {
		return []net.IP{ip}, nil
	}
	ips, err := LookupIP(host)
	if err != nil {
		return nil, err
	}
	if len(ips) == 0 {
		return nil, fmt.Errorf("no IP's returned from DNS lookup for %q", addr)
	}
	if hostLookupPreferV4 {
		var v4 []net.IP
		for _, ip := range ips {
			if ip4 := ip.To4(); ip4 != nil {
				v4 = append(v4, ip4)
			}
		}
		if len(v4) > 0 {
			ips = v4
		}
	}
	return ips, nil
}

// AddressTranslator maps node addresses discovered from the cluster (system.peers, events) to
// the addresses the driver dials, for example public to private IPs.
type AddressTranslator interface {
	// Translate returns the address and port to use for addr:port; it returns its input when
	// no translation applies.
	Translate(addr net.IP, port int) (net.IP, int)
}

// AddressTranslatorFunc adapts a function to AddressTranslator.
type AddressTranslatorFunc func(addr net.IP, port int) (net.IP, int)

// Translate calls fn(addr, port).
func (fn AddressTranslatorFunc) Translate(addr net.IP, port int) (net.IP, int) {
	return fn(addr, port)
}

// IdentityTranslator returns a translator that changes nothing.
func IdentityTranslator() AddressTranslator {
	return AddressTranslatorFunc(func(addr net.IP, port int) (net.IP, int) { return addr, port })
}

// JoinHostPort returns addr unchanged when it already carries a port, else addr:port.
func JoinHostPort(addr string, port int) string {
	addr = strings.TrimSpace(addr)
	if _, _, err := net.SplitHostPort(addr); err == nil {
		return addr
	}
	return net.JoinHostPort(addr, strconv.Itoa(port))
}

// LookupIP resolves host with the system resolver. Its error is the resolver's, as in gocql
// v1.7.0 (a *net.DNSError for a name that does not resolve).
func LookupIP(host string) ([]net.IP, error) {
	return net.LookupIP(host)
}

// ErrCannotFindHost is returned when a host is not known to the session.
var ErrCannotFindHost = errors.New("cannot find host")

// ErrHostAlreadyExists is returned when adding a host that is already known.
var ErrHostAlreadyExists = errors.New("host already exists")
