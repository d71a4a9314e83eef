package gocql

import (
	"context"
	"fmt"
	"sort"
	"strings"
)

// Default aliases of thrift-era tables.
const (
	DEFAULT_KEY_ALIAS    = "key"
	DEFAULT_COLUMN_ALIAS = "column"
	DEFAULT_VALUE_ALIAS  = "value"
)

// Cassandra marshal classes used in legacy schema tables.
const (
	REVERSED_TYPE   = "org.apache.cassandra.db.marshal.ReversedType"
	COMPOSITE_TYPE  = "org.apache.cassandra.db.marshal.CompositeType"
	COLLECTION_TYPE = "org.apache.cassandra.db.marshal.ColumnToCollectionType"
	LIST_TYPE       = "org.apache.cassandra.db.marshal.ListType"
	SET_TYPE        = "org.apache.cassandra.db.marshal.SetType"
	MAP_TYPE        = "org.apache.cassandra.db.marshal.MapType"
)

// KeyspaceMetadata is the schema of a keyspace.
type KeyspaceMetadata struct {
	Name            string
	DurableWrites   bool
	StrategyClass   string
	StrategyOptions map[string]interface{}
	Tables          map[string]*TableMetadata
	Functions       map[string]*FunctionMetadata
	Aggregates      map[string]*AggregateMetadata
	// Deprecated: use MaterializedViews for views and UserTypes for user types.
	Views             map[string]*ViewMetadata
	MaterializedViews map[string]*MaterializedViewMetadata
	UserTypes         map[string]*UserTypeMetadata
}

// TableMetadata is the schema of a table.
type TableMetadata struct {
	Keyspace          string
	Name              string
	KeyValidator      string
	Comparator        string
	DefaultValidator  string
	KeyAliases        []string
	ColumnAliases     []string
	ValueAlias        string
	PartitionKey      []*ColumnMetadata
	ClusteringColumns []*ColumnMetadata
	Columns           map[string]*ColumnMetadata
	OrderedColumns    []string
}

// ColumnKind is the role of a column in its table.
type ColumnKind int

// The column roles.
const (
	ColumnUnkownKind ColumnKind = iota
	ColumnPartitionKey
	ColumnClusteringKey
	ColumnRegular
	ColumnCompact
	ColumnStatic
)

// String returns the schema name of the kind.
func (c ColumnKind) String() string {
	switch c {
	case ColumnPartitionKey:
		return "partition_key"
	case ColumnClusteringKey:
		return "clustering_key"
	case ColumnRegular:
		return "regular"
	case ColumnCompact:
		return "compact"
	case ColumnStatic:
		return "static"
	}
	return fmt.Sprintf("unknown_column_%d", int(c))
}

// UnmarshalCQL parses the kind column of system_schema.columns.
func (c *ColumnKind) UnmarshalCQL(typ TypeInfo, p []byte) error {
	if typ.Type() != TypeVarchar {
		return unmarshalErrorf("unable to marshall %s into ColumnKind, expected Varchar", typ)
	}
	k, err := columnKindFromSchema(string(p))
	if err != nil {
		return err
	}
	*c = k
	return nil
}

func columnKindFromSchema(kind string) (ColumnKind, error) {
	switch kind {
	case "partition_key":
		return ColumnPartitionKey, nil
	case "clustering_key", "clustering":
		return ColumnClusteringKey, nil
	case "regular":
		return ColumnRegular, nil
	case "compact_value":
		return ColumnCompact, nil
	case "static":
		return ColumnStatic, nil
	}
	return ColumnUnkownKind, fmt.Errorf("gocql: unknown column kind %q", kind)
}

// ColumnOrder is the clustering order of a column.
type ColumnOrder bool

// The clustering orders.
const (
	ASC  ColumnOrder = false
	DESC ColumnOrder = true
)

// ColumnIndexMetadata describes a secondary index on a column.
type ColumnIndexMetadata struct {
	Name    string
	Type    string
	Options map[string]interface{}
}

// ColumnMetadata is the schema of a column.
type ColumnMetadata struct {
	Keyspace        string
	Table           string
	Name            string
	ComponentIndex  int
	Kind            ColumnKind
	Validator       string
	Type            TypeInfo
	ClusteringOrder string
	Order           ColumnOrder
	Index           ColumnIndexMetadata
}

// FunctionMetadata is the schema of a user-defined function.
type FunctionMetadata struct {
	Keyspace          string
	Name              string
	ArgumentTypes     []TypeInfo
	ArgumentNames     []string
	Body              string
	CalledOnNullInput bool
	Language          string
	ReturnType        TypeInfo
}

// AggregateMetadata is the schema of a user-defined aggregate.
type AggregateMetadata struct {
	Keyspace      string
	Name          string
	ArgumentTypes []TypeInfo
	FinalFunc     FunctionMetadata
	InitCond      string
	ReturnType    TypeInfo
	StateFunc     FunctionMetadata
	StateType     TypeInfo

	stateFunc string
	finalFunc string
}

// ViewMetadata is the schema of a user-defined type, under its deprecated name.
//
// Deprecated: use UserTypeMetadata and MaterializedViewMetadata.
type ViewMetadata struct {
	Keyspace   string
	Name       string
	FieldNames []string
	FieldTypes []TypeInfo
}

// MaterializedViewMetadata is the schema of a materialized view.
type MaterializedViewMetadata struct {
	Keyspace                string
	Name                    string
	BaseTableId             UUID
	BaseTable               *TableMetadata
	BloomFilterFpChance     float64
	Caching                 map[string]string
	Comment                 string
	Compaction              map[string]string
	Compression             map[string]string
	CrcCheckChance          float64
	DcLocalReadRepairChance float64
	DefaultTimeToLive       int
	Extensions              map[string]string
	GcGraceSeconds          int
	Id                      UUID
	IncludeAllColumns       bool
	MaxIndexInterval        int
	MemtableFlushPeriodInMs int
	MinIndexInterval        int
	ReadRepairChance        float64
	SpeculativeRetry        string

	baseTableName string
}

// UserTypeMetadata is the schema of a user-defined type.
type UserTypeMetadata struct {
	Keyspace   string
	Name       string
	FieldNames []string
	FieldTypes []TypeInfo
}

// KeyspaceMetadata reads the schema of keyspace from system_schema: tables, columns, user
// types, functions, aggregates and materialized views. It reads them on every call, where
// gocql v1.7.0 caches them until a schema change event (G56); a failed read is an error
// naming it, never ErrKeyspaceDoesNotExist (G57).
func (s *Session) KeyspaceMetadata(keyspace string) (*KeyspaceMetadata, error) {
	if s.Closed() {
		return nil, ErrSessionClosed
	}
	if keyspace == "" {
		return nil, ErrNoKeyspace
	}
	return s.keyspaceMeta(context.Background(), keyspace, true)
}

// schemaQuery runs a system_schema query at consistency ONE without paging.
func (s *Session) schemaQuery(ctx context.Context, stmt string, values ...interface{}) *Iter {
	return s.internalQuery(stmt, values...).WithContext(ctx).PageSize(0).Idempotent(true).Iter()
}

// internalQuery returns a query the driver runs for itself (schema metadata, trace events,
// the replication token-aware routing needs), at consistency ONE. As gocql's, which run on
// its control connection, it does not involve the application's policies or observers: the
// native core routes it (not the HostSelectionPolicy, whose Pick and Mark do not see it),
// retried up to three times as gocql's control connection retries its queries (not with the
// application's RetryPolicy), without speculative executions, and the session's
// QueryObserver and Tracer do not see it (a Tracer set with SetTrace would otherwise trace
// its own reads).
func (s *Session) internalQuery(stmt string, values ...interface{}) *Query {
	q := s.Query(stmt, values...).Consistency(One)
	q.observer, q.trace, q.rt, q.spec, q.internal = nil, nil, internalRetry, nil, true
	return q
}

// internalRetry is the retry policy of the driver's own queries: up to three retries, as
// gocql's control connection makes (SimpleRetryPolicy{NumRetries: 3}), each routed by the
// native core again (their plan has a single placeholder entry, so RetryNextHost would end
// it).
var internalRetry RetryPolicy = internalRetryPolicy{}

type internalRetryPolicy struct{}

// Attempt allows three retries.
func (internalRetryPolicy) Attempt(q RetryableQuery) bool { return q.Attempts() <= 3 }
func (internalRetryPolicy) GetRetryType(error) RetryType  { return Retry }

func (s *Session) keyspaceMeta(ctx context.Context, keyspace string, full bool) (*KeyspaceMetadata, error) {
	ks := &KeyspaceMetadata{Name: keyspace}
	var replication map[string]string
	iter := s.schemaQuery(ctx, "SELECT durable_writes, replication FROM system_schema.keyspaces WHERE keyspace_name = ?", keyspace)
	found := iter.Scan(&ks.DurableWrites, &replication)
	if err := iter.Close(); err != nil {
		return nil, fmt.Errorf("gocql: reading keyspace %q metadata: %w", keyspace, err)
	}
	if !found {
		return nil, ErrKeyspaceDoesNotExist
	}
	ks.StrategyClass = replication["class"]
	ks.StrategyOptions = make(map[string]interface{}, len(replication))
	for k, v := range replication {
		if k != "class" {
			ks.StrategyOptions[k] = v
		}
	}
	if !full {
		return ks, nil
	}
	types, err := s.userTypes(ctx, keyspace)
	if err != nil {
		return nil, err
	}
	ks.UserTypes = make(map[string]*UserTypeMetadata, len(types))
	ks.Views = make(map[string]*ViewMetadata, len(types))
	for _, t := range types {
		ks.UserTypes[t.Name] = t
		ks.Views[t.Name] = &ViewMetadata{Keyspace: t.Keyspace, Name: t.Name, FieldNames: t.FieldNames, FieldTypes: t.FieldTypes}
	}
	if err := s.readTables(ctx, ks); err != nil {
		return nil, err
	}
	if err := s.readFunctions(ctx, ks); err != nil {
		return nil, err
	}
	return ks, nil
}

func (s *Session) userTypes(ctx context.Context, keyspace string) ([]*UserTypeMetadata, error) {
	iter := s.schemaQuery(ctx, "SELECT type_name, field_names, field_types FROM system_schema.types WHERE keyspace_name = ?", keyspace)
	type raw struct {
		name          string
		fields, types []string
	}
	var rows []raw
	var r raw
	for iter.Scan(&r.name, &r.fields, &r.types) {
		rows = append(rows, r)
		r = raw{}
	}
	if err := iter.Close(); err != nil {
		return nil, fmt.Errorf("gocql: reading user types of %q: %w", keyspace, err)
	}
	out := make([]*UserTypeMetadata, 0, len(rows))
	for _, r := range rows {
		u := &UserTypeMetadata{Keyspace: keyspace, Name: r.name, FieldNames: r.fields,
			FieldTypes: make([]TypeInfo, len(r.types))}
		for i, t := range r.types {
			u.FieldTypes[i] = s.schemaTypeInfo(t, true)
		}
		out = append(out, u)
	}
	return out, nil
}

// readTables fills ks.Tables (the materialized views included, as gocql v1.7.0 lists them
// there) with their columns, and ks.MaterializedViews.
func (s *Session) readTables(ctx context.Context, ks *KeyspaceMetadata) error {
	ks.Tables = make(map[string]*TableMetadata)
	iter := s.schemaQuery(ctx, "SELECT table_name FROM system_schema.tables WHERE keyspace_name = ?", ks.Name)
	var name string
	for iter.Scan(&name) {
		ks.Tables[name] = &TableMetadata{Keyspace: ks.Name, Name: name, Columns: make(map[string]*ColumnMetadata)}
	}
	if err := iter.Close(); err != nil {
		return fmt.Errorf("gocql: reading tables of %q: %w", ks.Name, err)
	}
	// gocql v1.7.0 lists materialized views among the tables too, with their columns.
	if err := s.readViews(ctx, ks); err != nil {
		return err
	}
	for name := range ks.MaterializedViews {
		ks.Tables[name] = &TableMetadata{Keyspace: ks.Name, Name: name, Columns: make(map[string]*ColumnMetadata)}
	}
	iter = s.schemaQuery(ctx, "SELECT table_name, column_name, clustering_order, kind, position, type FROM system_schema.columns WHERE keyspace_name = ?", ks.Name)
	var (
		table, column, order, kind, typ string
		pos                             int
	)
	var cols []*ColumnMetadata
	for iter.Scan(&table, &column, &order, &kind, &pos, &typ) {
		k, _ := columnKindFromSchema(kind)
		c := &ColumnMetadata{Keyspace: ks.Name, Table: table, Name: column, ComponentIndex: pos, Kind: k,
			Validator: typ, Type: s.schemaTypeInfo(typ, false), ClusteringOrder: order, Order: ColumnOrder(order == "desc")}
		cols = append(cols, c)
	}
	if err := iter.Close(); err != nil {
		return fmt.Errorf("gocql: reading columns of %q: %w", ks.Name, err)
	}
	for _, c := range cols {
		t, ok := ks.Tables[c.Table]
		if !ok {
			continue // a table or view created after the names were read
		}
		t.Columns[c.Name] = c
		t.OrderedColumns = append(t.OrderedColumns, c.Name) // server order, as gocql
	}
	for _, t := range ks.Tables {
		orderColumns(t)
	}
	return nil
}

// orderColumns fills PartitionKey and ClusteringColumns in key order. OrderedColumns keeps
// the order the server lists the columns in (by name), as gocql does. Both key slices are
// non-nil, empty for a table without clustering columns, as gocql v1.7.0 makes them.
func orderColumns(t *TableMetadata) {
	t.PartitionKey, t.ClusteringColumns = []*ColumnMetadata{}, []*ColumnMetadata{}
	for _, name := range t.OrderedColumns {
		c := t.Columns[name]
		switch c.Kind {
		case ColumnPartitionKey:
			t.PartitionKey = append(t.PartitionKey, c)
		case ColumnClusteringKey:
			t.ClusteringColumns = append(t.ClusteringColumns, c)
		}
	}
	byPos := func(cs []*ColumnMetadata) {
		sort.Slice(cs, func(i, j int) bool { return cs[i].ComponentIndex < cs[j].ComponentIndex })
	}
	byPos(t.PartitionKey)
	byPos(t.ClusteringColumns)
}

func (s *Session) readFunctions(ctx context.Context, ks *KeyspaceMetadata) error {
	parse := func(t string) TypeInfo { return s.schemaTypeInfo(t, true) }
	ks.Functions = make(map[string]*FunctionMetadata)
	iter := s.schemaQuery(ctx, "SELECT function_name, argument_types, argument_names, body, called_on_null_input, language, return_type FROM system_schema.functions WHERE keyspace_name = ?", ks.Name)
	var (
		name, body, lang, ret string
		argTypes, argNames    []string
		onNull                bool
	)
	for iter.Scan(&name, &argTypes, &argNames, &body, &onNull, &lang, &ret) {
		f := &FunctionMetadata{Keyspace: ks.Name, Name: name, ArgumentNames: argNames, Body: body,
			CalledOnNullInput: onNull, Language: lang, ReturnType: parse(ret)}
		f.ArgumentTypes = make([]TypeInfo, 0, len(argTypes)) // empty, not nil, without arguments, as gocql
		for _, a := range argTypes {
			f.ArgumentTypes = append(f.ArgumentTypes, parse(a))
		}
		ks.Functions[name] = f
	}
	if err := iter.Close(); err != nil {
		return fmt.Errorf("gocql: reading functions of %q: %w", ks.Name, err)
	}
	ks.Aggregates = make(map[string]*AggregateMetadata)
	iter = s.schemaQuery(ctx, "SELECT aggregate_name, argument_types, final_func, initcond, return_type, state_func, state_type FROM system_schema.aggregates WHERE keyspace_name = ?", ks.Name)
	var final, initCond, state, stateType string
	for iter.Scan(&name, &argTypes, &final, &initCond, &ret, &state, &stateType) {
		a := &AggregateMetadata{Keyspace: ks.Name, Name: name, InitCond: initCond, ReturnType: parse(ret),
			StateType: parse(stateType), stateFunc: state, finalFunc: final}
		a.ArgumentTypes = make([]TypeInfo, 0, len(argTypes))
		for _, t := range argTypes {
			a.ArgumentTypes = append(a.ArgumentTypes, parse(t))
		}
		if f, ok := ks.Functions[state]; ok {
			a.StateFunc = *f
		}
		if f, ok := ks.Functions[final]; ok {
			a.FinalFunc = *f
		}
		ks.Aggregates[name] = a
	}
	if err := iter.Close(); err != nil {
		return fmt.Errorf("gocql: reading aggregates of %q: %w", ks.Name, err)
	}
	return nil
}

func (s *Session) readViews(ctx context.Context, ks *KeyspaceMetadata) error {
	ks.MaterializedViews = make(map[string]*MaterializedViewMetadata)
	iter := s.schemaQuery(ctx, "SELECT view_name, base_table_id, base_table_name, bloom_filter_fp_chance, caching, comment, compaction, compression, crc_check_chance, default_time_to_live, extensions, gc_grace_seconds, id, include_all_columns, max_index_interval, memtable_flush_period_in_ms, min_index_interval, speculative_retry FROM system_schema.views WHERE keyspace_name = ?", ks.Name)
	for {
		v := &MaterializedViewMetadata{Keyspace: ks.Name}
		var extensions map[string][]byte
		if !iter.Scan(&v.Name, &v.BaseTableId, &v.baseTableName, &v.BloomFilterFpChance, &v.Caching, &v.Comment,
			&v.Compaction, &v.Compression, &v.CrcCheckChance, &v.DefaultTimeToLive, &extensions, &v.GcGraceSeconds,
			&v.Id, &v.IncludeAllColumns, &v.MaxIndexInterval, &v.MemtableFlushPeriodInMs, &v.MinIndexInterval,
			&v.SpeculativeRetry) {
			break
		}
		v.Extensions = make(map[string]string, len(extensions))
		for k, b := range extensions {
			v.Extensions[k] = string(b)
		}
		v.BaseTable = ks.Tables[v.baseTableName]
		ks.MaterializedViews[v.Name] = v
	}
	if err := iter.Close(); err != nil {
		return fmt.Errorf("gocql: reading views of %q: %w", ks.Name, err)
	}
	return nil
}

// schemaTypeInfo turns a type as system_schema writes it ("int", "frozen<map<text, int>>",
// "tuple<int, text>", a user type's name) into a TypeInfo the way gocql v1.7.0 does, quirks
// included, because programs inspect these values:
//   - a user-defined type (and anything else that is not a native type, a collection or a
//     tuple: vector, a custom class, a misspelt name) is a NativeType of TypeCustom with an
//     empty Custom(), never a UDTTypeInfo;
//   - the TypeInfo has protocol version 0 (Version() == 0), so Marshal and Unmarshal refuse it
//     (gocql panics; this package returns an error);
//   - frozen<...> is dropped, and a map without exactly two parameters is logged and becomes
//     TypeCustom.
//
// classNames is true for user type fields, function and aggregate types, where gocql first
// rewrites a Java marshal class name ("org.apache.cassandra.db.marshal.Int32Type") into a CQL one.
func (s *Session) schemaTypeInfo(name string, classNames bool) TypeInfo {
	if classNames && strings.HasPrefix(name, marshalPackage) {
		name = classToCQL(name)
	}
	return s.cqlTypeInfo(name)
}

func (s *Session) cqlTypeInfo(name string) TypeInfo {
	inner := func(prefix string) string { return strings.TrimPrefix(name[:len(name)-1], prefix) }
	switch {
	case strings.HasPrefix(name, "frozen<"):
		return s.cqlTypeInfo(inner("frozen<"))
	case strings.HasPrefix(name, "list<"):
		return CollectionType{NativeType: NativeType{typ: TypeList}, Elem: s.cqlTypeInfo(inner("list<"))}
	case strings.HasPrefix(name, "set<"):
		return CollectionType{NativeType: NativeType{typ: TypeSet}, Elem: s.cqlTypeInfo(inner("set<"))}
	case strings.HasPrefix(name, "map<"):
		params := splitTypeParams(inner("map<"))
		if len(params) != 2 {
			s.logger.Printf("Error parsing map type, it has %d subelements, expecting 2\n", len(params))
			return NativeType{typ: TypeCustom}
		}
		return CollectionType{NativeType: NativeType{typ: TypeMap},
			Key: s.cqlTypeInfo(params[0]), Elem: s.cqlTypeInfo(params[1])}
	case strings.HasPrefix(name, "tuple<"):
		params := splitTypeParams(inner("tuple<"))
		elems := make([]TypeInfo, len(params))
		for i, p := range params {
			elems[i] = s.cqlTypeInfo(p)
		}
		return TupleTypeInfo{NativeType: NativeType{typ: TypeTuple}, Elems: elems}
	}
	return NativeType{typ: schemaBaseType(name)}
}

// schemaBaseTypes are the names gocql v1.7.0 recognises as a whole type name in system_schema
// (the marshal class names of the collections and tuples included); every other name is
// TypeCustom.
var schemaBaseTypes = map[string]Type{
	"ascii": TypeAscii, "bigint": TypeBigInt, "blob": TypeBlob, "boolean": TypeBoolean,
	"counter": TypeCounter, "date": TypeDate, "decimal": TypeDecimal, "double": TypeDouble,
	"duration": TypeDuration, "float": TypeFloat, "int": TypeInt, "smallint": TypeSmallInt,
	"tinyint": TypeTinyInt, "time": TypeTime, "timestamp": TypeTimestamp, "uuid": TypeUUID,
	"varchar": TypeVarchar, "text": TypeText, "varint": TypeVarint, "timeuuid": TypeTimeUUID,
	"inet": TypeInet, "MapType": TypeMap, "ListType": TypeList, "SetType": TypeSet,
	"TupleType": TypeTuple,
}

func schemaBaseType(name string) Type {
	if t, ok := schemaBaseTypes[name]; ok {
		return t
	}
	return TypeCustom
}

// splitTypeParams splits the parameters of a parameterised type ("text, frozen<map<int, int>>")
// at its top-level commas. Without nested parameters it splits at ", " only, as gocql v1.7.0.
func splitTypeParams(params string) []string {
	if !strings.Contains(params, "<") {
		return strings.Split(params, ", ")
	}
	var out []string
	depth, start := 0, 0
	add := func(end int) {
		if p := strings.TrimSpace(params[start:end]); p != "" {
			out = append(out, p)
		}
	}
	for i := 0; i < len(params); i++ {
		switch params[i] {
		case '<':
			depth++
		case '>':
			depth--
		case ',':
			if depth == 0 {
				add(i)
				start = i + 1
			}
		}
	}
	add(len(params))
	return out
}

// classTypes maps the marshal classes gocql v1.7.0 knows to their type; any other class is
// TypeCustom.
var classTypes = map[string]Type{
	"AsciiType": TypeAscii, "LongType": TypeBigInt, "BytesType": TypeBlob, "BooleanType": TypeBoolean,
	"CounterColumnType": TypeCounter, "DecimalType": TypeDecimal, "DoubleType": TypeDouble,
	"FloatType": TypeFloat, "Int32Type": TypeInt, "ShortType": TypeSmallInt, "ByteType": TypeTinyInt,
	"TimeType": TypeTime, "DateType": TypeTimestamp, "TimestampType": TypeTimestamp,
	"UUIDType": TypeUUID, "LexicalUUIDType": TypeUUID, "UTF8Type": TypeVarchar,
	"IntegerType": TypeVarint, "TimeUUIDType": TypeTimeUUID, "InetAddressType": TypeInet,
	"MapType": TypeMap, "ListType": TypeList, "SetType": TypeSet, "TupleType": TypeTuple,
	"DurationType": TypeDuration,
}

// classToCQL rewrites a marshal class type ("org.apache.cassandra.db.marshal.MapType(
// org.apache.cassandra.db.marshal.UTF8Type,org.apache.cassandra.db.marshal.Int32Type)") into
// the CQL spelling gocql v1.7.0 then parses ("map<varchar, int>"): every class name becomes its
// Type's name ("custom" for a class it does not know).
func classToCQL(class string) string {
	class = strings.ReplaceAll(class, marshalPackage, "")
	var sb strings.Builder
	start := 0
	flush := func(end int) {
		if end > start {
			t, ok := classTypes[class[start:end]]
			if !ok {
				t = TypeCustom
			}
			sb.WriteString(t.String())
		}
	}
	for i := 0; i < len(class); i++ {
		switch c := class[i]; c {
		case '(', ')', ',':
			flush(i)
			start = i + 1
			switch c {
			case '(':
				sb.WriteByte('<')
			case ')':
				sb.WriteByte('>')
			default:
				sb.WriteString(", ")
			}
		}
	}
	flush(len(class))
	return sb.String()
}
