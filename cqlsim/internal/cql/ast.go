package cql

// Statement is one parsed CQL statement.
type Statement interface{ stmt() }

// QualifiedName is an optionally keyspace-qualified name; Keyspace is "" when not given.
type QualifiedName struct {
	Keyspace string
	Name     string
}

// TypeExpr is a CQL type as written: a name (int, text, a UDT name), or a parameterised type
// (list, set, map, tuple, frozen, vector) with its arguments.
type TypeExpr struct {
	Name     string // lower-cased native or collection name, or the UDT name
	Keyspace string // for qualified UDT names
	Args     []*TypeExpr
	Dim      int // vector dimension
}

// TermKind classifies a Term.
type TermKind int

// The term kinds.
const (
	TermString TermKind = iota + 1
	TermInteger
	TermFloat
	TermBool
	TermUUID
	TermHex
	TermDuration
	TermNull
	TermBind     // ? or :name
	TermList     // [a, b]
	TermSet      // {a, b}
	TermMap      // {k: v}, also a UDT literal when the keys are identifiers
	TermTuple    // (a, b)
	TermFunc     // now(), uuid(), token(...)
	TermEmptyMap // {}: an empty set, map or UDT
	TermCast     // (type) term
)

// Term is a value expression.
type Term struct {
	Kind     TermKind
	Text     string  // literal text (string contents, number digits, ...), function name
	Elems    []*Term // list/set/tuple elements, function args, map keys (with Values)
	Values   []*Term // map values
	Fields   []string
	BindIdx  int    // index of a bind marker among all markers of the statement
	BindName string // name of a named marker
	Cast     *TypeExpr
	Pos      Token
}

// Using holds USING TTL / TIMESTAMP / TIMEOUT.
type Using struct {
	TTL       *Term
	Timestamp *Term
}

// ColumnDef is a column in CREATE TABLE or ALTER TABLE ADD.
type ColumnDef struct {
	Name   string
	Type   *TypeExpr
	Static bool
}

// CreateKeyspace is CREATE KEYSPACE.
type CreateKeyspace struct {
	Name        string
	IfNotExists bool
	Options     map[string]*Term
}

// AlterKeyspace is ALTER KEYSPACE ... WITH.
type AlterKeyspace struct {
	Name    string
	Options map[string]*Term
}

// DropKeyspace is DROP KEYSPACE.
type DropKeyspace struct {
	Name     string
	IfExists bool
}

// CreateTable is CREATE TABLE.
type CreateTable struct {
	Table           QualifiedName
	IfNotExists     bool
	Columns         []ColumnDef
	PartitionKey    []string
	Clustering      []string
	ClusteringOrder map[string]bool // column -> descending
	OrderList       []string
	CompactStorage  bool
	Options         map[string]*Term
}

// AlterTable is ALTER TABLE ... ADD / DROP / WITH.
type AlterTable struct {
	Table          QualifiedName
	IfExists       bool // ALTER TABLE IF EXISTS
	Add            []ColumnDef
	AddIfNotExists bool
	Drop           []string
	DropIfExists   bool
	Rename         []Rename // RENAME a TO b [AND c TO d]
	RenameIfExists bool
	AlterColumn    string // ALTER c TYPE t, which Cassandra no longer supports
	Options        map[string]*Term
}

// Rename is one "a TO b" of ALTER TABLE or ALTER TYPE ... RENAME.
type Rename struct{ From, To string }

// DropTable is DROP TABLE.
type DropTable struct {
	Table    QualifiedName
	IfExists bool
}

// Truncate is TRUNCATE [TABLE].
type Truncate struct{ Table QualifiedName }

// CreateType is CREATE TYPE.
type CreateType struct {
	Type        QualifiedName
	IfNotExists bool
	Fields      []ColumnDef
}

// AlterType is ALTER TYPE ... ADD field.
type AlterType struct {
	Type           QualifiedName
	IfExists       bool // ALTER TYPE IF EXISTS
	Add            []ColumnDef
	AddIfNotExists bool
	Rename         []Rename
	RenameIfExists bool
	AlterField     string // ALTER f TYPE t, which Cassandra no longer supports
}

// DropType is DROP TYPE.
type DropType struct {
	Type     QualifiedName
	IfExists bool
}

// CreateIndex is CREATE [CUSTOM] INDEX.
type CreateIndex struct {
	Name        string // "" for the default name
	IfNotExists bool
	Custom      bool
	Table       QualifiedName
	Column      string
	Kind        string // "", "keys", "values", "entries" or "full"
	Using       string
	Options     map[string]*Term
}

// DropIndex is DROP INDEX.
type DropIndex struct {
	Index    QualifiedName
	IfExists bool
}

// Use is USE keyspace.
type Use struct{ Keyspace string }

// Unsupported is a statement cqlsim recognises but does not implement.
type Unsupported struct{ What string }

// Operator is a relation or condition operator.
type Operator string

// The operators.
const (
	OpEq       Operator = "="
	OpNe       Operator = "!="
	OpLt       Operator = "<"
	OpLe       Operator = "<="
	OpGt       Operator = ">"
	OpGe       Operator = ">="
	OpIn       Operator = "IN"
	OpContains Operator = "CONTAINS"
	OpContKey  Operator = "CONTAINS KEY"
	OpLike     Operator = "LIKE"
)

// Relation is one WHERE restriction: Columns op Value. Token is set for token(a, b) op term;
// multiple Columns (a, b) > (1, 2) form a multi-column relation, and so does a single column
// in parentheses, (c) > (1), with Tuple set.
type Relation struct {
	Columns []string
	Key     *Term // m[key] op term: a map entry restriction on the single column
	Token   bool
	Tuple   bool // the columns are in parentheses: the values are tuples (or markers)
	Op      Operator
	Value   *Term   // nil for IN with a list of terms
	In      []*Term // IN (a, b)
	Pos     Token
}

// Condition is one IF condition: Column [Elem] op Value.
type Condition struct {
	Column string
	Elem   *Term // m['k'] = v
	Field  string
	Op     Operator
	Value  *Term
	In     []*Term
}

// Insert is INSERT INTO.
type Insert struct {
	Table       QualifiedName
	Columns     []string
	Values      []*Term
	JSON        *Term
	JSONUnset   bool // DEFAULT UNSET: columns missing from the JSON are left untouched
	IfNotExists bool
	Using       Using
}

// AssignKind classifies an UPDATE SET assignment.
type AssignKind int

// The assignment kinds.
const (
	AssignSet     AssignKind = iota + 1 // c = v
	AssignAdd                           // c = c + v
	AssignPrepend                       // c = v + c
	AssignSub                           // c = c - v
	AssignElem                          // c[k] = v
	AssignField                         // c.f = v
)

// Assignment is one UPDATE SET item.
type Assignment struct {
	Column string
	Kind   AssignKind
	Key    *Term // element key/index
	Field  string
	Value  *Term
	Pos    Token
}

// Update is UPDATE.
type Update struct {
	Table      QualifiedName
	Using      Using
	Set        []Assignment
	Where      []Relation
	Conditions []Condition
	IfExists   bool
}

// DeleteTarget is a column, or an element of a collection column, to delete.
type DeleteTarget struct {
	Column string
	Key    *Term
	Field  string
}

// Delete is DELETE.
type Delete struct {
	Table      QualifiedName
	Targets    []DeleteTarget
	Using      Using
	Where      []Relation
	Conditions []Condition
	IfExists   bool
}

// SelectorKind classifies a selector.
type SelectorKind int

// The selector kinds.
const (
	SelColumn SelectorKind = iota + 1
	SelCountStar
	SelFunc
	SelWritetime
	SelTTL
	SelTerm
	SelField
	SelElement // c[key], or the slice c[from..to] (From, To; either may be nil)
	SelCast    // CAST(arg AS type): Args[0] is the argument, Name the native type as written
)

// Selector is one item of a SELECT list.
type Selector struct {
	Kind  SelectorKind
	Name  string // column name or function name
	Args  []*Selector
	Term  *Term // SelTerm; the key of SelElement
	Field string
	// SelElement slices: the bounds (nil when open) of c[from..to].
	Slice    bool
	From, To *Term
	Alias    string
	Pos      Token
	Raw      string // source text, used as the default column name
}

// OrderBy is one ORDER BY item: a column in ascending or descending order, or Cassandra 5.0's
// vector search, column ANN OF vector (ANN is the vector: a literal, a cast or a bind marker).
type OrderBy struct {
	Column string
	Desc   bool
	ANN    *Term
}

// Select is SELECT.
type Select struct {
	Table             QualifiedName
	JSON              bool
	Distinct          bool
	Star              bool
	Selectors         []Selector
	Where             []Relation
	GroupBy           []string
	OrderBy           []OrderBy
	Limit             *Term
	PerPartitionLimit *Term
	AllowFiltering    bool
}

// BatchType is LOGGED, UNLOGGED or COUNTER.
type BatchType int

// The batch types.
const (
	BatchLogged BatchType = iota
	BatchUnlogged
	BatchCounter
)

// Batch is BEGIN ... BATCH ... APPLY BATCH.
type Batch struct {
	Type       BatchType
	Using      Using
	Statements []Statement
}

func (*CreateKeyspace) stmt() {}
func (*AlterKeyspace) stmt()  {}
func (*DropKeyspace) stmt()   {}
func (*CreateTable) stmt()    {}
func (*AlterTable) stmt()     {}
func (*DropTable) stmt()      {}
func (*Truncate) stmt()       {}
func (*CreateType) stmt()     {}
func (*AlterType) stmt()      {}
func (*DropType) stmt()       {}
func (*Use) stmt()            {}
func (*CreateIndex) stmt()    {}
func (*DropIndex) stmt()      {}
func (*Unsupported) stmt()    {}
func (*Insert) stmt()         {}
func (*Update) stmt()         {}
func (*Delete) stmt()         {}
func (*Select) stmt()         {}
func (*Batch) stmt()          {}
