package cql

import (
	"fmt"
	"strconv"
	"strings"
)

// Parsed is the outcome of Parse: the statement and the number of bind markers it holds.
type Parsed struct {
	Stmt    Statement
	Markers int
}

// maxDepth bounds nesting of terms and types so that hostile input cannot exhaust the stack.
const maxDepth = 64

type parser struct {
	src     string
	all     []Token // every token, whitespace and comments included
	toks    []Token // the significant tokens
	i       int
	markers int
	depth   int
}

// Parse parses one CQL statement (an optional trailing ';' is allowed).
func Parse(src string) (*Parsed, error) {
	all, err := Lex(src)
	if err != nil {
		return nil, err
	}
	p := &parser{src: src, all: all}
	for _, t := range all {
		if !t.Hidden {
			p.toks = append(p.toks, t)
		}
	}
	st, err := p.statement()
	if err != nil {
		return nil, err
	}
	p.acceptPunct(";")
	if p.peek().Kind != TokEOF {
		return nil, p.errNoViable()
	}
	return &Parsed{Stmt: st, Markers: p.markers}, nil
}

func (p *parser) peek() Token { return p.toks[p.i] }
func (p *parser) peekN(n int) Token {
	if p.i+n < len(p.toks) {
		return p.toks[p.i+n]
	}
	return p.toks[len(p.toks)-1]
}
func (p *parser) nextTok() Token {
	t := p.toks[p.i]
	if t.Kind != TokEOF {
		p.i++
	}
	return t
}

// hlLen is the length of a token's text as Cassandra's lexer reports it (string literals and
// quoted names without their quotes).
func hlLen(t Token) int {
	if t.Kind == TokString || t.Kind == TokQuotedIdent {
		return len(t.Text)
	}
	return len(t.Raw)
}

// snippet renders the query around the offending token the way Cassandra's ErrorCollector
// does: from ten stream tokens before it (whitespace counts) to the token itself, which is
// bracketed; "..." marks a cut at either end.
func (p *parser) snippet(off Token) string {
	from := p.all[max(0, off.Index-10)]
	end := min(off.Off+hlLen(off), len(p.src))
	var b strings.Builder
	b.WriteString(" (")
	if from.Off != 0 {
		b.WriteString("...")
	}
	b.WriteString(p.src[from.Off:off.Off])
	b.WriteString("[")
	b.WriteString(p.src[off.Off:end])
	b.WriteString("]")
	if end != len(p.src) {
		b.WriteString("...")
	}
	b.WriteString(")")
	return strings.ReplaceAll(b.String(), "\n", "")
}

// snippetTo renders the query around off as snippet does, continuing after the bracketed
// token up to the end of last: Cassandra's snippet reaches the furthest token its parser looked
// ahead to (at most two stream tokens after the parser's position).
func (p *parser) snippetTo(off, last Token) string {
	s := p.snippet(off)
	end := min(off.Off+hlLen(off), len(p.src))
	if last.Index > off.Index+2 {
		last = p.all[off.Index+2]
	}
	lastEnd := min(last.Off+hlLen(last), len(p.src))
	if last.Kind == TokEOF || lastEnd <= end {
		return s
	}
	s = strings.TrimSuffix(strings.TrimSuffix(s, ")"), "...")
	s += strings.ReplaceAll(p.src[end:lastEnd], "\n", "")
	if lastEnd != len(p.src) {
		s += "..."
	}
	return s + ")"
}

// noViableAhead is ANTLR's "no viable alternative" when a decision at the token at ahead
// (from the parser's position) failed on the token at bad: the message names bad, the snippet
// brackets the token at ahead and runs to bad.
func (p *parser) noViableAhead(ahead, bad int) error {
	t := p.peekN(bad)
	msg := fmt.Sprintf("no viable alternative at input '%s'", display(t))
	return &SyntaxError{t.Line, t.Col, msg + p.snippetTo(p.peekN(ahead), t)}
}

func (p *parser) syntaxErr(msg string) error {
	t := p.peek()
	if t.Kind == TokEOF {
		// ANTLR's EOF token has no position, and Cassandra prints no snippet for it
		return &SyntaxError{0, -1, msg}
	}
	return &SyntaxError{t.Line, t.Col, msg + p.snippet(t)}
}

// display is the token text ANTLR puts in messages (literals without their quotes).
func display(t Token) string {
	if t.Kind == TokString || t.Kind == TokQuotedIdent {
		return t.Text
	}
	return t.Raw
}

func (p *parser) errNoViable() error {
	return p.syntaxErr(fmt.Sprintf("no viable alternative at input '%s'", display(p.peek())))
}

func (p *parser) errMismatch(expecting string) error {
	return p.syntaxErr(fmt.Sprintf("mismatched input '%s' expecting %s", display(p.peek()), expecting))
}

func (p *parser) isKw(kw string) bool {
	t := p.peek()
	return t.Kind == TokIdent && strings.EqualFold(t.Text, kw)
}
func (p *parser) isKwAt(n int, kw string) bool {
	t := p.peekN(n)
	return t.Kind == TokIdent && strings.EqualFold(t.Text, kw)
}

func (p *parser) acceptKw(kw string) bool {
	if p.isKw(kw) {
		p.i++
		return true
	}
	return false
}

func (p *parser) expectKw(kw string) error {
	if !p.acceptKw(kw) {
		return p.errMismatch("K_" + strings.ToUpper(kw))
	}
	return nil
}

func (p *parser) isPunct(s string) bool {
	t := p.peek()
	return t.Kind == TokPunct && t.Text == s
}

// isPunctAt reports whether the token n ahead is the punctuation s.
func (p *parser) isPunctAt(n int, s string) bool {
	t := p.peekN(n)
	return t.Kind == TokPunct && t.Text == s
}

func (p *parser) acceptPunct(s string) bool {
	if p.isPunct(s) {
		p.i++
		return true
	}
	return false
}

func (p *parser) expectPunct(s string) error {
	if !p.acceptPunct(s) {
		return p.errMismatch("'" + s + "'")
	}
	return nil
}

// reserved words cannot be used as unquoted identifiers.
var reserved = map[string]bool{
	"add": true, "allow": true, "alter": true, "and": true, "apply": true, "asc": true, "authorize": true,
	"batch": true, "begin": true, "by": true, "columnfamily": true, "create": true, "delete": true,
	"desc": true, "describe": true, "drop": true, "entries": true, "execute": true, "from": true,
	"full": true, "grant": true, "if": true, "in": true, "index": true, "infinity": true, "insert": true,
	"into": true, "keyspace": true, "limit": true, "modify": true, "nan": true, "norecursive": true,
	"not": true, "null": true, "of": true, "on": true, "or": true, "order": true, "primary": true,
	"rename": true, "revoke": true, "schema": true, "select": true, "set": true, "table": true, "to": true,
	"token": true, "truncate": true, "unlogged": true, "update": true, "use": true, "using": true,
	"view": true, "where": true, "with": true,
}

// ident parses an identifier: unquoted (lower-cased) or quoted (kept as is).
func (p *parser) ident() (string, error) {
	t := p.peek()
	switch t.Kind {
	case TokQuotedIdent:
		p.i++
		return t.Text, nil
	case TokIdent:
		if reserved[strings.ToLower(t.Text)] {
			return "", p.errNoViable()
		}
		p.i++
		return strings.ToLower(t.Text), nil
	}
	return "", p.errNoViable()
}

// identAllowKw parses an identifier where keywords are acceptable (after '.', as option names).
func (p *parser) identAllowKw() (string, error) {
	t := p.peek()
	switch t.Kind {
	case TokQuotedIdent:
		p.i++
		return t.Text, nil
	case TokIdent:
		p.i++
		return strings.ToLower(t.Text), nil
	}
	return "", p.errNoViable()
}

func (p *parser) qualifiedName() (QualifiedName, error) {
	a, err := p.ident()
	if err != nil {
		return QualifiedName{}, err
	}
	if p.acceptPunct(".") {
		b, err := p.identAllowKw()
		if err != nil {
			return QualifiedName{}, err
		}
		return QualifiedName{Keyspace: a, Name: b}, nil
	}
	return QualifiedName{Name: a}, nil
}

func (p *parser) statement() (Statement, error) {
	t := p.peek()
	if t.Kind != TokIdent {
		return nil, p.errNoViable()
	}
	switch strings.ToLower(t.Text) {
	case "select":
		return p.selectStmt()
	case "insert":
		return p.insertStmt()
	case "update":
		return p.updateStmt()
	case "delete":
		return p.deleteStmt()
	case "begin":
		return p.batchStmt()
	case "use":
		p.i++
		ks, err := p.ident()
		if err != nil {
			return nil, err
		}
		return &Use{Keyspace: ks}, nil
	case "truncate":
		p.i++
		p.acceptKw("table")
		n, err := p.qualifiedName()
		if err != nil {
			return nil, err
		}
		return &Truncate{Table: n}, nil
	case "create":
		return p.createStmt()
	case "drop":
		return p.dropStmt()
	case "alter":
		return p.alterStmt()
	case "grant", "revoke", "list", "describe", "desc":
		return p.unsupported(strings.ToUpper(t.Text))
	}
	return nil, p.errNoViable()
}

// unsupported consumes the rest of the statement and names what cqlsim does not implement.
func (p *parser) unsupported(what string) (Statement, error) {
	for p.peek().Kind != TokEOF && !p.isPunct(";") {
		p.i++
	}
	return &Unsupported{What: what}, nil
}

func (p *parser) ifNotExists() (bool, error) {
	if p.acceptKw("if") {
		if err := p.expectKw("not"); err != nil {
			return false, err
		}
		if err := p.expectKw("exists"); err != nil {
			return false, err
		}
		return true, nil
	}
	return false, nil
}

func (p *parser) ifExists() (bool, error) {
	if p.isKw("if") && p.isKwAt(1, "exists") {
		p.i += 2
		return true, nil
	}
	return false, nil
}

func (p *parser) createStmt() (Statement, error) {
	p.i++ // CREATE
	switch {
	case p.acceptKw("keyspace"), p.acceptKw("schema"):
		ine, err := p.ifNotExists()
		if err != nil {
			return nil, err
		}
		name, err := p.ident()
		if err != nil {
			return nil, err
		}
		if err := p.expectKw("with"); err != nil {
			return nil, err
		}
		opts, err := p.properties()
		if err != nil {
			return nil, err
		}
		return &CreateKeyspace{Name: name, IfNotExists: ine, Options: opts}, nil
	case p.acceptKw("table"), p.acceptKw("columnfamily"):
		return p.createTable()
	case p.acceptKw("type"):
		ine, err := p.ifNotExists()
		if err != nil {
			return nil, err
		}
		name, err := p.qualifiedName()
		if err != nil {
			return nil, err
		}
		fields, err := p.fieldList()
		if err != nil {
			return nil, err
		}
		return &CreateType{Type: name, IfNotExists: ine, Fields: fields}, nil
	case p.isKw("index"), p.isKw("custom"):
		return p.createIndex()
	case p.isKw("materialized"):
		return p.unsupported("CREATE MATERIALIZED VIEW")
	case p.isKw("function"), p.isKw("or"):
		return p.unsupported("CREATE FUNCTION")
	case p.isKw("aggregate"):
		return p.unsupported("CREATE AGGREGATE")
	case p.isKw("trigger"):
		return p.unsupported("CREATE TRIGGER")
	case p.isKw("role"), p.isKw("user"):
		return p.unsupported("CREATE " + strings.ToUpper(p.peek().Text))
	}
	return nil, p.errNoViable()
}

// createIndex parses CREATE [CUSTOM] INDEX [IF NOT EXISTS] [name] ON table (target) [USING ...].
func (p *parser) createIndex() (Statement, error) {
	ci := &CreateIndex{}
	if p.acceptKw("custom") {
		ci.Custom = true
	}
	if err := p.expectKw("index"); err != nil {
		return nil, err
	}
	var err error
	if ci.IfNotExists, err = p.ifNotExists(); err != nil {
		return nil, err
	}
	if !p.isKw("on") {
		if ci.Name, err = p.ident(); err != nil {
			return nil, err
		}
	}
	if err := p.expectKw("on"); err != nil {
		return nil, err
	}
	if ci.Table, err = p.qualifiedName(); err != nil {
		return nil, err
	}
	if err := p.expectPunct("("); err != nil {
		return nil, err
	}
	if t := p.peek(); t.Kind == TokIdent && p.peekN(1).Kind == TokPunct && p.peekN(1).Text == "(" {
		switch fn := strings.ToLower(t.Text); fn {
		case "keys", "values", "entries", "full":
			p.i += 2
			ci.Kind = fn
			if ci.Column, err = p.ident(); err != nil {
				return nil, err
			}
			if err := p.expectPunct(")"); err != nil {
				return nil, err
			}
		default:
			return nil, p.errNoViable()
		}
	} else if ci.Column, err = p.ident(); err != nil {
		return nil, err
	}
	if err := p.expectPunct(")"); err != nil {
		return nil, err
	}
	if p.acceptKw("using") {
		t := p.peek()
		if t.Kind != TokString {
			return nil, p.errNoViable()
		}
		p.i++
		ci.Using = t.Text
	}
	if p.acceptKw("with") {
		if ci.Options, err = p.properties(); err != nil {
			return nil, err
		}
	}
	return ci, nil
}

func (p *parser) fieldList() ([]ColumnDef, error) {
	if err := p.expectPunct("("); err != nil {
		return nil, err
	}
	var fields []ColumnDef
	for {
		n, err := p.identAllowKw()
		if err != nil {
			return nil, err
		}
		ty, err := p.typeExpr()
		if err != nil {
			return nil, err
		}
		fields = append(fields, ColumnDef{Name: n, Type: ty})
		if p.acceptPunct(",") {
			continue
		}
		if err := p.expectPunct(")"); err != nil {
			return nil, err
		}
		return fields, nil
	}
}

func (p *parser) createTable() (Statement, error) {
	ine, err := p.ifNotExists()
	if err != nil {
		return nil, err
	}
	name, err := p.qualifiedName()
	if err != nil {
		return nil, err
	}
	ct := &CreateTable{Table: name, IfNotExists: ine, ClusteringOrder: map[string]bool{}}
	if err := p.expectPunct("("); err != nil {
		return nil, err
	}
	for {
		if p.isKw("primary") {
			p.i++
			if err := p.expectKw("key"); err != nil {
				return nil, err
			}
			if len(ct.PartitionKey) > 0 {
				return nil, &SyntaxError{p.peek().Line, p.peek().Col, "Multiple PRIMARY KEYs specified (exactly one required)"}
			}
			if err := p.primaryKey(ct); err != nil {
				return nil, err
			}
		} else {
			n, err := p.ident()
			if err != nil {
				return nil, err
			}
			ty, err := p.typeExpr()
			if err != nil {
				return nil, err
			}
			cd := ColumnDef{Name: n, Type: ty}
			if p.acceptKw("static") {
				cd.Static = true
			}
			if p.isKw("primary") {
				p.i++
				if err := p.expectKw("key"); err != nil {
					return nil, err
				}
				if len(ct.PartitionKey) > 0 {
					return nil, &SyntaxError{p.peek().Line, p.peek().Col, "Multiple PRIMARY KEYs specified (exactly one required)"}
				}
				ct.PartitionKey = []string{n}
			}
			ct.Columns = append(ct.Columns, cd)
		}
		if p.acceptPunct(",") {
			if p.isPunct(")") {
				break
			}
			continue
		}
		break
	}
	if err := p.expectPunct(")"); err != nil {
		return nil, err
	}
	ct.Options = map[string]*Term{}
	if p.acceptKw("with") {
		for {
			switch {
			case p.isKw("clustering"):
				p.i++
				if err := p.expectKw("order"); err != nil {
					return nil, err
				}
				if err := p.expectKw("by"); err != nil {
					return nil, err
				}
				if err := p.expectPunct("("); err != nil {
					return nil, err
				}
				for {
					c, err := p.ident()
					if err != nil {
						return nil, err
					}
					desc := false
					if p.acceptKw("desc") {
						desc = true
					} else if !p.acceptKw("asc") {
						return nil, p.errNoViable()
					}
					ct.ClusteringOrder[c] = desc
					ct.OrderList = append(ct.OrderList, c)
					if !p.acceptPunct(",") {
						break
					}
				}
				if err := p.expectPunct(")"); err != nil {
					return nil, err
				}
			case p.isKw("compact"):
				p.i++
				if err := p.expectKw("storage"); err != nil {
					return nil, err
				}
				ct.CompactStorage = true
			default:
				if err := p.property(ct.Options); err != nil {
					return nil, err
				}
			}
			if !p.acceptKw("and") {
				break
			}
		}
	}
	return ct, nil
}

func (p *parser) primaryKey(ct *CreateTable) error {
	if err := p.expectPunct("("); err != nil {
		return err
	}
	if p.acceptPunct("(") {
		for {
			c, err := p.ident()
			if err != nil {
				return err
			}
			ct.PartitionKey = append(ct.PartitionKey, c)
			if !p.acceptPunct(",") {
				break
			}
		}
		if err := p.expectPunct(")"); err != nil {
			return err
		}
	} else {
		c, err := p.ident()
		if err != nil {
			return err
		}
		ct.PartitionKey = []string{c}
	}
	for p.acceptPunct(",") {
		c, err := p.ident()
		if err != nil {
			return err
		}
		ct.Clustering = append(ct.Clustering, c)
	}
	return p.expectPunct(")")
}

// properties parses name = value [AND name = value ...].
func (p *parser) properties() (map[string]*Term, error) {
	opts := map[string]*Term{}
	for {
		if err := p.property(opts); err != nil {
			return nil, err
		}
		if !p.acceptKw("and") {
			return opts, nil
		}
	}
}

func (p *parser) property(opts map[string]*Term) error {
	n, err := p.identAllowKw()
	if err != nil {
		return err
	}
	if err := p.expectPunct("="); err != nil {
		return err
	}
	var v *Term
	if t := p.peek(); t.Kind == TokIdent && !p.isKwAt(0, "null") {
		// unquoted constants such as true/false or a bare word
		p.i++
		v = &Term{Kind: TermString, Text: t.Text, Pos: t}
		if strings.EqualFold(t.Text, "true") || strings.EqualFold(t.Text, "false") {
			v.Kind = TermBool
			v.Text = strings.ToLower(t.Text)
		}
	} else {
		v, err = p.term()
		if err != nil {
			return err
		}
	}
	opts[n] = v
	return nil
}

func (p *parser) dropStmt() (Statement, error) {
	p.i++ // DROP
	switch {
	case p.acceptKw("keyspace"), p.acceptKw("schema"):
		ie, _ := p.ifExists()
		n, err := p.ident()
		if err != nil {
			return nil, err
		}
		return &DropKeyspace{Name: n, IfExists: ie}, nil
	case p.acceptKw("table"), p.acceptKw("columnfamily"):
		ie, _ := p.ifExists()
		n, err := p.qualifiedName()
		if err != nil {
			return nil, err
		}
		return &DropTable{Table: n, IfExists: ie}, nil
	case p.acceptKw("type"):
		ie, _ := p.ifExists()
		n, err := p.qualifiedName()
		if err != nil {
			return nil, err
		}
		return &DropType{Type: n, IfExists: ie}, nil
	case p.acceptKw("index"):
		ie, _ := p.ifExists()
		n, err := p.qualifiedName()
		if err != nil {
			return nil, err
		}
		return &DropIndex{Index: n, IfExists: ie}, nil
	case p.isKw("materialized"):
		return p.unsupported("DROP MATERIALIZED VIEW")
	case p.isKw("function"), p.isKw("aggregate"), p.isKw("trigger"), p.isKw("role"), p.isKw("user"):
		return p.unsupported("DROP " + strings.ToUpper(p.peek().Text))
	}
	return nil, p.errNoViable()
}

func (p *parser) alterStmt() (Statement, error) {
	p.i++ // ALTER
	switch {
	case p.acceptKw("keyspace"), p.acceptKw("schema"):
		n, err := p.ident()
		if err != nil {
			return nil, err
		}
		if err := p.expectKw("with"); err != nil {
			return nil, err
		}
		opts, err := p.properties()
		if err != nil {
			return nil, err
		}
		return &AlterKeyspace{Name: n, Options: opts}, nil
	case p.acceptKw("table"), p.acceptKw("columnfamily"):
		ie, _ := p.ifExists()
		n, err := p.qualifiedName()
		if err != nil {
			return nil, err
		}
		at := &AlterTable{Table: n, IfExists: ie}
		switch {
		case p.acceptKw("add"):
			if at.AddIfNotExists, err = p.ifNotExists(); err != nil {
				return nil, err
			}
			paren := p.acceptPunct("(")
			for {
				c, err := p.ident()
				if err != nil {
					return nil, err
				}
				ty, err := p.typeExpr()
				if err != nil {
					return nil, err
				}
				cd := ColumnDef{Name: c, Type: ty, Static: p.acceptKw("static")}
				at.Add = append(at.Add, cd)
				if !paren || !p.acceptPunct(",") {
					break
				}
			}
			if paren {
				if err := p.expectPunct(")"); err != nil {
					return nil, err
				}
			}
		case p.acceptKw("drop"):
			at.DropIfExists, _ = p.ifExists()
			paren := p.acceptPunct("(")
			for {
				c, err := p.ident()
				if err != nil {
					return nil, err
				}
				at.Drop = append(at.Drop, c)
				if !paren || !p.acceptPunct(",") {
					break
				}
			}
			if paren {
				if err := p.expectPunct(")"); err != nil {
					return nil, err
				}
			}
		case p.acceptKw("with"):
			opts, err := p.properties()
			if err != nil {
				return nil, err
			}
			at.Options = opts
		case p.acceptKw("alter"):
			c, err := p.alterTypeClause()
			if err != nil {
				return nil, err
			}
			at.AlterColumn = c
		case p.acceptKw("rename"):
			at.RenameIfExists, _ = p.ifExists()
			if at.Rename, err = p.renames(p.ident); err != nil {
				return nil, err
			}
		default:
			return nil, p.errNoViable()
		}
		return at, nil
	case p.acceptKw("type"):
		ie, _ := p.ifExists()
		n, err := p.qualifiedName()
		if err != nil {
			return nil, err
		}
		at := &AlterType{Type: n, IfExists: ie}
		switch {
		case p.acceptKw("add"):
			if at.AddIfNotExists, err = p.ifNotExists(); err != nil {
				return nil, err
			}
			f, err := p.identAllowKw()
			if err != nil {
				return nil, err
			}
			ty, err := p.typeExpr()
			if err != nil {
				return nil, err
			}
			at.Add = []ColumnDef{{Name: f, Type: ty}}
		case p.acceptKw("alter"):
			f, err := p.alterTypeClause()
			if err != nil {
				return nil, err
			}
			at.AlterField = f
		case p.acceptKw("rename"):
			at.RenameIfExists, _ = p.ifExists()
			if at.Rename, err = p.renames(p.identAllowKw); err != nil {
				return nil, err
			}
		default:
			return nil, p.errNoViable()
		}
		return at, nil
	case p.isKw("materialized"), p.isKw("role"), p.isKw("user"):
		return p.unsupported("ALTER " + strings.ToUpper(p.peek().Text))
	}
	return nil, p.errNoViable()
}

// isLiteralWord reports whether an unquoted word is a literal (null, true, false) rather than
// a name.
func isLiteralWord(w string) bool {
	return strings.EqualFold(w, "null") || strings.EqualFold(w, "true") || strings.EqualFold(w, "false")
}

// alterTypeClause parses "name TYPE type" after ALTER TABLE ... ALTER (or ALTER TYPE ...
// ALTER) and returns the name.
func (p *parser) alterTypeClause() (string, error) {
	c, err := p.identAllowKw()
	if err != nil {
		return "", err
	}
	if err := p.expectKw("type"); err != nil {
		return "", err
	}
	if _, err := p.typeExpr(); err != nil {
		return "", err
	}
	return c, nil
}

// renames parses "a TO b [AND c TO d ...]", reading names with ident.
func (p *parser) renames(ident func() (string, error)) ([]Rename, error) {
	var out []Rename
	for {
		from, err := ident()
		if err != nil {
			return nil, err
		}
		if err := p.expectKw("to"); err != nil {
			return nil, err
		}
		to, err := ident()
		if err != nil {
			return nil, err
		}
		out = append(out, Rename{From: from, To: to})
		if !p.acceptKw("and") {
			return out, nil
		}
	}
}

// typeExpr parses a CQL type.
func (p *parser) typeExpr() (*TypeExpr, error) {
	p.depth++
	defer func() { p.depth-- }()
	if p.depth > maxDepth {
		return nil, &SyntaxError{p.peek().Line, p.peek().Col, "type nested too deeply"}
	}
	t := p.peek()
	if t.Kind != TokIdent && t.Kind != TokQuotedIdent {
		return nil, p.errNoViable()
	}
	p.i++
	name := t.Text
	if t.Kind == TokIdent {
		name = strings.ToLower(name)
	}
	if t.Kind == TokIdent {
		switch name {
		case "list", "set", "frozen", "map", "tuple", "vector":
			if !p.isPunct("<") {
				break
			}
			p.i++
			te := &TypeExpr{Name: name}
			for {
				a, err := p.typeExpr()
				if err != nil {
					return nil, err
				}
				te.Args = append(te.Args, a)
				if name == "vector" {
					if err := p.expectPunct(","); err != nil {
						return nil, err
					}
					d := p.peek()
					if d.Kind != TokInteger {
						return nil, p.errNoViable()
					}
					p.i++
					// Cassandra reads the dimension as a Java int.
					n, err := strconv.ParseInt(d.Text, 10, 32)
					if err != nil || n <= 0 {
						return nil, &SyntaxError{d.Line, d.Col, "vector dimension must be an integer from 1 to 2147483647"}
					}
					te.Dim = int(n)
					break
				}
				if !p.acceptPunct(",") {
					break
				}
			}
			if err := p.expectPunct(">"); err != nil {
				return nil, err
			}
			want := map[string]int{"list": 1, "set": 1, "frozen": 1, "map": 2, "vector": 1}[name]
			if want > 0 && len(te.Args) != want {
				return nil, &SyntaxError{t.Line, t.Col, fmt.Sprintf("%s takes %d type argument(s)", name, want)}
			}
			return te, nil
		}
	}
	if p.acceptPunct(".") {
		n2, err := p.identAllowKw()
		if err != nil {
			return nil, err
		}
		return &TypeExpr{Name: n2, Keyspace: name}, nil
	}
	return &TypeExpr{Name: name}, nil
}

func (p *parser) bindMarker() *Term {
	t := p.nextTok()
	term := &Term{Kind: TermBind, BindIdx: p.markers, Pos: t}
	if t.Kind == TokNamedMarker {
		term.BindName = t.Text
	}
	p.markers++
	return term
}

// term parses a value expression.
func (p *parser) term() (*Term, error) {
	p.depth++
	defer func() { p.depth-- }()
	if p.depth > maxDepth {
		return nil, &SyntaxError{p.peek().Line, p.peek().Col, "term nested too deeply"}
	}
	t := p.peek()
	switch t.Kind {
	case TokString:
		p.i++
		return &Term{Kind: TermString, Text: t.Text, Pos: t}, nil
	case TokInteger:
		p.i++
		return &Term{Kind: TermInteger, Text: t.Text, Pos: t}, nil
	case TokFloat:
		p.i++
		return &Term{Kind: TermFloat, Text: t.Text, Pos: t}, nil
	case TokHex:
		p.i++
		return &Term{Kind: TermHex, Text: t.Text, Pos: t}, nil
	case TokUUID:
		p.i++
		return &Term{Kind: TermUUID, Text: t.Text, Pos: t}, nil
	case TokDuration:
		p.i++
		return &Term{Kind: TermDuration, Text: t.Text, Pos: t}, nil
	case TokQMark, TokNamedMarker:
		return p.bindMarker(), nil
	case TokIdent:
		low := strings.ToLower(t.Text)
		switch low {
		case "true", "false":
			p.i++
			return &Term{Kind: TermBool, Text: low, Pos: t}, nil
		case "null":
			p.i++
			return &Term{Kind: TermNull, Pos: t}, nil
		case "nan", "infinity":
			p.i++
			return &Term{Kind: TermFloat, Text: t.Text, Pos: t}, nil
		}
		if p.peekN(1).Kind == TokPunct && p.peekN(1).Text == "(" {
			p.i += 2
			fn := &Term{Kind: TermFunc, Text: low, Pos: t}
			if !p.acceptPunct(")") {
				for {
					a, err := p.term()
					if err != nil {
						return nil, err
					}
					fn.Elems = append(fn.Elems, a)
					if !p.acceptPunct(",") {
						break
					}
				}
				if err := p.expectPunct(")"); err != nil {
					return nil, err
				}
			}
			return fn, nil
		}
	case TokPunct:
		switch t.Text {
		case "[":
			p.i++
			l := &Term{Kind: TermList, Pos: t}
			if p.acceptPunct("]") {
				return l, nil
			}
			for {
				e, err := p.term()
				if err != nil {
					return nil, err
				}
				l.Elems = append(l.Elems, e)
				if !p.acceptPunct(",") {
					break
				}
			}
			return l, p.expectPunct("]")
		case "{":
			return p.braceTerm()
		case "(":
			p.i++
			// a cast: (type) term
			if p.peek().Kind == TokIdent && p.peekN(1).Kind == TokPunct && (p.peekN(1).Text == ")" || p.peekN(1).Text == "<") && isTypeName(p.peek().Text) {
				ty, err := p.typeExpr()
				if err != nil {
					return nil, err
				}
				if err := p.expectPunct(")"); err != nil {
					return nil, err
				}
				v, err := p.term()
				if err != nil {
					return nil, err
				}
				return &Term{Kind: TermCast, Cast: ty, Elems: []*Term{v}, Pos: t}, nil
			}
			tu := &Term{Kind: TermTuple, Pos: t}
			for {
				e, err := p.term()
				if err != nil {
					return nil, err
				}
				tu.Elems = append(tu.Elems, e)
				if !p.acceptPunct(",") {
					break
				}
			}
			return tu, p.expectPunct(")")
		case "-":
			// "- 5" with a space: a negative literal
			if n := p.peekN(1); n.Kind == TokInteger || n.Kind == TokFloat {
				p.i += 2
				k := TermInteger
				if n.Kind == TokFloat {
					k = TermFloat
				}
				return &Term{Kind: k, Text: "-" + n.Text, Pos: t}, nil
			}
		}
	}
	return nil, p.errNoViable()
}

func isTypeName(s string) bool {
	switch strings.ToLower(s) {
	case "ascii", "bigint", "blob", "boolean", "counter", "date", "decimal", "double", "duration", "float",
		"inet", "int", "smallint", "text", "time", "timestamp", "timeuuid", "tinyint", "uuid", "varchar",
		"varint", "list", "set", "map", "frozen", "tuple", "vector":
		return true
	}
	return false
}

func (p *parser) braceTerm() (*Term, error) {
	open := p.nextTok()
	if p.acceptPunct("}") {
		return &Term{Kind: TermEmptyMap, Pos: open}, nil
	}
	// UDT literal: { ident : term, ... }
	if (p.peek().Kind == TokIdent || p.peek().Kind == TokQuotedIdent) && p.peekN(1).Kind == TokPunct && p.peekN(1).Text == ":" &&
		!(p.peek().Kind == TokIdent && (strings.EqualFold(p.peek().Text, "true") || strings.EqualFold(p.peek().Text, "false") || strings.EqualFold(p.peek().Text, "null"))) {
		m := &Term{Kind: TermMap, Pos: open}
		for {
			f, err := p.identAllowKw()
			if err != nil {
				return nil, err
			}
			if err := p.expectPunct(":"); err != nil {
				return nil, err
			}
			v, err := p.term()
			if err != nil {
				return nil, err
			}
			m.Fields = append(m.Fields, f)
			m.Values = append(m.Values, v)
			if !p.acceptPunct(",") {
				break
			}
		}
		return m, p.expectPunct("}")
	}
	first, err := p.term()
	if err != nil {
		return nil, err
	}
	if p.acceptPunct(":") {
		m := &Term{Kind: TermMap, Pos: open}
		v, err := p.term()
		if err != nil {
			return nil, err
		}
		m.Elems = append(m.Elems, first)
		m.Values = append(m.Values, v)
		for p.acceptPunct(",") {
			k, err := p.term()
			if err != nil {
				return nil, err
			}
			if err := p.expectPunct(":"); err != nil {
				return nil, err
			}
			v, err := p.term()
			if err != nil {
				return nil, err
			}
			m.Elems = append(m.Elems, k)
			m.Values = append(m.Values, v)
		}
		return m, p.expectPunct("}")
	}
	s := &Term{Kind: TermSet, Pos: open, Elems: []*Term{first}}
	for p.acceptPunct(",") {
		e, err := p.term()
		if err != nil {
			return nil, err
		}
		s.Elems = append(s.Elems, e)
	}
	return s, p.expectPunct("}")
}

func (p *parser) using(u *Using, allowTTL bool) error {
	if !p.acceptKw("using") {
		return nil
	}
	for {
		switch {
		case p.isKw("ttl") && !allowTTL:
			return p.errMismatch("K_TIMESTAMP")
		case p.acceptKw("ttl"):
			// an integer literal or a bind marker (Cassandra's intValue)
			t, err := p.limitValue()
			if err != nil {
				return err
			}
			u.TTL = t
		case p.acceptKw("timestamp"):
			t, err := p.limitValue()
			if err != nil {
				return err
			}
			u.Timestamp = t
		case p.acceptKw("timeout"):
			if _, err := p.term(); err != nil {
				return err
			}
		default:
			return p.errNoViable()
		}
		if !p.acceptKw("and") {
			return nil
		}
	}
}

func (p *parser) insertStmt() (Statement, error) {
	p.i++
	if err := p.expectKw("into"); err != nil {
		return nil, err
	}
	name, err := p.qualifiedName()
	if err != nil {
		return nil, err
	}
	ins := &Insert{Table: name}
	if p.acceptKw("json") {
		t, err := p.term()
		if err != nil {
			return nil, err
		}
		ins.JSON = t
		if p.acceptKw("default") {
			switch {
			case p.acceptKw("unset"):
				ins.JSONUnset = true
			case p.acceptKw("null"):
			default:
				return nil, p.errNoViable()
			}
		}
	} else {
		if err := p.expectPunct("("); err != nil {
			return nil, err
		}
		for {
			c, err := p.ident()
			if err != nil {
				return nil, err
			}
			ins.Columns = append(ins.Columns, c)
			if !p.acceptPunct(",") {
				break
			}
		}
		if err := p.expectPunct(")"); err != nil {
			return nil, err
		}
		if err := p.expectKw("values"); err != nil {
			return nil, err
		}
		if err := p.expectPunct("("); err != nil {
			return nil, err
		}
		for {
			v, err := p.term()
			if err != nil {
				return nil, err
			}
			ins.Values = append(ins.Values, v)
			if !p.acceptPunct(",") {
				break
			}
		}
		if err := p.expectPunct(")"); err != nil {
			return nil, err
		}
	}
	if ins.IfNotExists, err = p.ifNotExists(); err != nil {
		return nil, err
	}
	if err := p.using(&ins.Using, true); err != nil {
		return nil, err
	}
	if !ins.IfNotExists {
		if ins.IfNotExists, err = p.ifNotExists(); err != nil {
			return nil, err
		}
	}
	return ins, nil
}

// recognitionError is an error Cassandra's parser collects while it recognizes a statement
// (addRecognitionError): a syntax error whose message has no position.
type recognitionError string

func (e recognitionError) Error() string { return string(e) }

// compatibleAssignments reports whether two SET items of one column may appear in one UPDATE,
// by Cassandra's rules: setting the whole column excludes any other item, and a field of a
// user type may be set once.
func compatibleAssignments(a, b Assignment) bool {
	if a.Kind == AssignSet || b.Kind == AssignSet {
		return false
	}
	return !(a.Kind == AssignField && b.Kind == AssignField && a.Field == b.Field)
}

func (p *parser) updateStmt() (Statement, error) {
	p.i++
	name, err := p.qualifiedName()
	if err != nil {
		return nil, err
	}
	up := &Update{Table: name}
	if err := p.using(&up.Using, true); err != nil {
		return nil, err
	}
	if err := p.expectKw("set"); err != nil {
		return nil, err
	}
	for {
		a, err := p.assignment()
		if err != nil {
			return nil, err
		}
		for _, b := range up.Set {
			if b.Column == a.Column && !compatibleAssignments(b, a) {
				// Cassandra's parser reports it as a recognition error (a syntax error
				// with no position)
				return nil, recognitionError("Multiple incompatible setting of column " + a.Column)
			}
		}
		up.Set = append(up.Set, a)
		if !p.acceptPunct(",") {
			break
		}
	}
	if err := p.expectKw("where"); err != nil {
		return nil, err
	}
	if up.Where, err = p.whereClause(); err != nil {
		return nil, err
	}
	if up.IfExists, up.Conditions, err = p.ifClause(); err != nil {
		return nil, err
	}
	return up, nil
}

func (p *parser) assignment() (Assignment, error) {
	pos := p.peek()
	col, err := p.ident()
	if err != nil {
		return Assignment{}, err
	}
	a := Assignment{Column: col, Pos: pos}
	switch {
	case p.acceptPunct("["):
		k, err := p.term()
		if err != nil {
			return a, err
		}
		if err := p.expectPunct("]"); err != nil {
			return a, err
		}
		a.Kind, a.Key = AssignElem, k
	case p.acceptPunct("."):
		f, err := p.identAllowKw()
		if err != nil {
			return a, err
		}
		a.Kind, a.Field = AssignField, f
	}
	if err := p.expectPunct("="); err != nil {
		return a, err
	}
	if a.Kind != 0 {
		v, err := p.term()
		if err != nil {
			return a, err
		}
		a.Value = v
		return a, nil
	}
	// c = c + v | c = c - v | c = v + c | c = v
	if t, nx := p.peek(), p.peekN(1); (t.Kind == TokIdent && !isLiteralWord(t.Text) || t.Kind == TokQuotedIdent) && !p.sameIdent(t, col) &&
		nx.Kind == TokPunct && (nx.Text == "+" || nx.Text == "-") {
		return a, &SyntaxError{-1, 0, "Only expressions of the form X = X " + nx.Text + "<value> are supported."}
	}
	if t := p.peek(); (t.Kind == TokIdent || t.Kind == TokQuotedIdent) && p.sameIdent(t, col) {
		nx := p.peekN(1)
		if nx.Kind == TokPunct && (nx.Text == "+" || nx.Text == "-") {
			p.i += 2
			v, err := p.term()
			if err != nil {
				return a, err
			}
			a.Kind, a.Value = AssignAdd, v
			if nx.Text == "-" {
				a.Kind = AssignSub
			}
			return a, nil
		}
		if nx.Kind == TokInteger && strings.HasPrefix(nx.Text, "-") {
			p.i += 2
			a.Kind, a.Value = AssignSub, &Term{Kind: TermInteger, Text: nx.Text[1:], Pos: nx}
			return a, nil
		}
	}
	v, err := p.term()
	if err != nil {
		return a, err
	}
	if p.acceptPunct("+") {
		t := p.peek()
		if (t.Kind == TokIdent || t.Kind == TokQuotedIdent) && p.sameIdent(t, col) {
			p.i++
			a.Kind, a.Value = AssignPrepend, v
			return a, nil
		}
		if t.Kind == TokIdent && !isLiteralWord(t.Text) && !(p.peekN(1).Kind == TokPunct && p.peekN(1).Text == "(") || t.Kind == TokQuotedIdent {
			return a, &SyntaxError{-1, 0, "Only expressions of the form X = <value> + X are supported."}
		}
		return a, p.errNoViable()
	}
	a.Kind, a.Value = AssignSet, v
	return a, nil
}

func (p *parser) sameIdent(t Token, col string) bool {
	if t.Kind == TokQuotedIdent {
		return t.Text == col
	}
	return strings.ToLower(t.Text) == col
}

func (p *parser) ifClause() (ifExists bool, conds []Condition, err error) {
	if !p.isKw("if") {
		return false, nil, nil
	}
	if p.isKwAt(1, "exists") {
		// EXISTS is also a column name: what follows it decides, as in Cassandra's grammar
		next := p.peekN(2)
		switch {
		case next.Kind == TokEOF, next.Kind == TokPunct && next.Text == ";",
			p.isKwAt(2, "insert"), p.isKwAt(2, "update"), p.isKwAt(2, "delete"), p.isKwAt(2, "apply"):
			p.i += 2
			return true, nil, nil
		case !p.startsConditionOp(2):
			return false, nil, p.noViableAhead(1, 2)
		}
	}
	p.i++
	for {
		c, err := p.condition()
		if err != nil {
			return false, nil, err
		}
		conds = append(conds, c)
		if !p.acceptKw("and") {
			return false, conds, nil
		}
	}
}

// startsConditionOp reports whether the token n ahead can follow a column name in an IF
// condition: an operator, IN, CONTAINS, an element access or a field selection.
func (p *parser) startsConditionOp(n int) bool {
	t := p.peekN(n)
	if t.Kind == TokPunct {
		switch t.Text {
		case "=", "!=", "<", "<=", ">", ">=", "[", ".":
			return true
		}
	}
	return p.isKwAt(n, "in") || p.isKwAt(n, "contains")
}

func (p *parser) condition() (Condition, error) {
	col, err := p.ident()
	if err != nil {
		return Condition{}, err
	}
	c := Condition{Column: col}
	if p.acceptPunct("[") {
		if c.Elem, err = p.term(); err != nil {
			return c, err
		}
		if err := p.expectPunct("]"); err != nil {
			return c, err
		}
	} else if p.acceptPunct(".") {
		if c.Field, err = p.identAllowKw(); err != nil {
			return c, err
		}
	}
	if p.acceptKw("in") {
		c.Op = OpIn
		if p.peek().Kind == TokQMark || p.peek().Kind == TokNamedMarker {
			c.Value = p.bindMarker()
			return c, nil
		}
		if err := p.expectPunct("("); err != nil {
			return c, err
		}
		if !p.acceptPunct(")") {
			for {
				v, err := p.term()
				if err != nil {
					return c, err
				}
				c.In = append(c.In, v)
				if !p.acceptPunct(",") {
					break
				}
			}
			if err := p.expectPunct(")"); err != nil {
				return c, err
			}
		}
		return c, nil
	}
	if (c.Elem != nil || c.Field != "") && p.isKw("contains") {
		// CONTAINS applies to a whole collection column only
		return c, p.errNoViable()
	}
	op, ok := p.operator()
	if !ok {
		return c, p.errNoViable()
	}
	c.Op = op
	c.Value, err = p.term()
	return c, err
}

func (p *parser) operator() (Operator, bool) {
	t := p.peek()
	if t.Kind == TokPunct {
		switch t.Text {
		case "=", "!=", "<", "<=", ">", ">=":
			p.i++
			return Operator(t.Text), true
		}
	}
	if p.acceptKw("contains") {
		if p.acceptKw("key") {
			return OpContKey, true
		}
		return OpContains, true
	}
	if p.acceptKw("like") {
		return OpLike, true
	}
	return "", false
}

func (p *parser) whereClause() ([]Relation, error) {
	var rels []Relation
	for {
		r, err := p.relation()
		if err != nil {
			return nil, err
		}
		rels = append(rels, r)
		if !p.acceptKw("and") {
			return rels, nil
		}
	}
}

func (p *parser) relation() (Relation, error) {
	pos := p.peek()
	r := Relation{Pos: pos}
	switch {
	case p.isKw("token") && p.peekN(1).Kind == TokPunct && p.peekN(1).Text == "(":
		p.i += 2
		r.Token = true
		for {
			c, err := p.ident()
			if err != nil {
				return r, err
			}
			r.Columns = append(r.Columns, c)
			if !p.acceptPunct(",") {
				break
			}
		}
		if err := p.expectPunct(")"); err != nil {
			return r, err
		}
		if p.isKw("in") {
			return r, p.errNoViable() // token() takes no IN in Cassandra's grammar
		}
	case p.isPunct("("):
		p.i++
		r.Tuple = true
		for {
			c, err := p.ident()
			if err != nil {
				return r, err
			}
			r.Columns = append(r.Columns, c)
			if !p.acceptPunct(",") {
				break
			}
		}
		if err := p.expectPunct(")"); err != nil {
			return r, err
		}
		return r, p.tupleRelation(&r)
	default:
		c, err := p.ident()
		if err != nil {
			return r, err
		}
		r.Columns = []string{c}
		if p.acceptPunct("[") {
			if r.Key, err = p.term(); err != nil {
				return r, err
			}
			if err := p.expectPunct("]"); err != nil {
				return r, err
			}
			if p.isKw("in") {
				return r, p.errNoViable() // the grammar has no IN on a map entry
			}
		}
	}
	if p.acceptKw("in") {
		r.Op = OpIn
		if p.peek().Kind == TokQMark || p.peek().Kind == TokNamedMarker {
			r.Value = p.bindMarker()
			return r, nil
		}
		if err := p.expectPunct("("); err != nil {
			return r, err
		}
		if !p.acceptPunct(")") {
			for {
				v, err := p.term()
				if err != nil {
					return r, err
				}
				r.In = append(r.In, v)
				if !p.acceptPunct(",") {
					break
				}
			}
			if err := p.expectPunct(")"); err != nil {
				return r, err
			}
		}
		return r, nil
	}
	op, ok := p.operator()
	if !ok {
		return r, p.errNoViable()
	}
	r.Op = op
	if r.Token {
		// token(k) > token(?) is allowed too
		if p.isKw("token") && p.peekN(1).Kind == TokPunct && p.peekN(1).Text == "(" {
			t, err := p.term()
			if err != nil {
				return r, err
			}
			r.Value = t
			return r, nil
		}
	}
	v, err := p.term()
	if err != nil {
		return r, err
	}
	r.Value = v
	return r, nil
}

// tupleRelation parses the rest of a relation on columns in parentheses, (a, b) op ..., after
// the closing parenthesis: the grammar allows only tuple literals and bind markers there, as in
// (a, b) > (1, 2), (a) IN ((1), (2)), (a, b) IN ? or (a) = ?.
func (p *parser) tupleRelation(r *Relation) error {
	tuple := func() (*Term, error) {
		if k := p.peek().Kind; k == TokQMark || k == TokNamedMarker {
			return p.bindMarker(), nil
		}
		if !p.isPunct("(") || (p.peekN(1).Kind == TokIdent && isTypeName(p.peekN(1).Text)) {
			return nil, p.errNoViable()
		}
		return p.term()
	}
	if p.acceptKw("in") {
		r.Op = OpIn
		if k := p.peek().Kind; k == TokQMark || k == TokNamedMarker {
			r.Value = p.bindMarker()
			return nil
		}
		if err := p.expectPunct("("); err != nil {
			return err
		}
		if p.acceptPunct(")") {
			return nil
		}
		for {
			v, err := tuple()
			if err != nil {
				return err
			}
			r.In = append(r.In, v)
			if !p.acceptPunct(",") {
				break
			}
		}
		return p.expectPunct(")")
	}
	if p.isKw("contains") || p.isKw("like") {
		return p.errNoViable()
	}
	op, ok := p.operator()
	if !ok {
		return p.errNoViable()
	}
	r.Op = op
	v, err := tuple()
	r.Value = v
	return err
}

func (p *parser) deleteStmt() (Statement, error) {
	p.i++
	d := &Delete{}
	if !p.isKw("from") {
		for {
			c, err := p.ident()
			if err != nil {
				return nil, err
			}
			tg := DeleteTarget{Column: c}
			if p.acceptPunct("[") {
				if tg.Key, err = p.term(); err != nil {
					return nil, err
				}
				if err := p.expectPunct("]"); err != nil {
					return nil, err
				}
			} else if p.acceptPunct(".") {
				if tg.Field, err = p.identAllowKw(); err != nil {
					return nil, err
				}
			}
			d.Targets = append(d.Targets, tg)
			if !p.acceptPunct(",") {
				break
			}
		}
	}
	if err := p.expectKw("from"); err != nil {
		return nil, err
	}
	var err error
	if d.Table, err = p.qualifiedName(); err != nil {
		return nil, err
	}
	if err := p.using(&d.Using, false); err != nil {
		return nil, err
	}
	if err := p.expectKw("where"); err != nil {
		return nil, err
	}
	if d.Where, err = p.whereClause(); err != nil {
		return nil, err
	}
	if d.IfExists, d.Conditions, err = p.ifClause(); err != nil {
		return nil, err
	}
	return d, nil
}

func (p *parser) selectStmt() (Statement, error) {
	p.i++
	s := &Select{}
	if p.acceptKw("json") {
		s.JSON = true
	}
	if p.isKw("distinct") && !(p.peekN(1).Kind == TokIdent && strings.EqualFold(p.peekN(1).Text, "from")) {
		if p.isKwAt(1, "json") && p.peekN(2).Kind == TokIdent && !p.isKwAt(2, "from") && !p.isKwAt(2, "as") {
			// JSON comes before DISTINCT: Cassandra's parser gives up at JSON
			return nil, p.noViableAhead(0, 1)
		}
		p.i++
		s.Distinct = true
	}
	if p.acceptPunct("*") {
		s.Star = true
	} else {
		for {
			sel, err := p.selector()
			if err != nil {
				return nil, err
			}
			if t := p.peek(); t.Kind == TokPunct && len(t.Text) == 1 && strings.Contains("+-*/%", t.Text) || t.Kind == TokInteger && strings.HasPrefix(t.Text, "-") {
				// Cassandra 5.0 takes arithmetic in selections; cqlsim does not
				return p.unsupported("arithmetic operators in selections")
			}
			if p.acceptKw("as") {
				if sel.Alias, err = p.identAllowKw(); err != nil {
					return nil, err
				}
			}
			s.Selectors = append(s.Selectors, *sel)
			if !p.acceptPunct(",") {
				break
			}
		}
	}
	if err := p.expectKw("from"); err != nil {
		return nil, err
	}
	var err error
	if s.Table, err = p.qualifiedName(); err != nil {
		return nil, err
	}
	if p.acceptKw("where") {
		if s.Where, err = p.whereClause(); err != nil {
			return nil, err
		}
	}
	if p.isKw("group") {
		p.i++
		if err := p.expectKw("by"); err != nil {
			return nil, err
		}
		for {
			c, err := p.ident()
			if err != nil {
				return nil, err
			}
			s.GroupBy = append(s.GroupBy, c)
			if !p.acceptPunct(",") {
				break
			}
		}
	}
	if p.acceptKw("order") {
		if err := p.expectKw("by"); err != nil {
			return nil, err
		}
		for {
			c, err := p.ident()
			if err != nil {
				return nil, err
			}
			ob := OrderBy{Column: c}
			if p.acceptKw("ann") {
				if err := p.expectKw("of"); err != nil {
					return nil, err
				}
				if ob.ANN, err = p.term(); err != nil {
					return nil, err
				}
			}
			if p.acceptKw("desc") {
				ob.Desc = true
			} else {
				p.acceptKw("asc")
			}
			s.OrderBy = append(s.OrderBy, ob)
			if !p.acceptPunct(",") {
				break
			}
		}
	}
	if p.isKw("per") {
		p.i++
		if err := p.expectKw("partition"); err != nil {
			return nil, err
		}
		if err := p.expectKw("limit"); err != nil {
			return nil, err
		}
		if s.PerPartitionLimit, err = p.limitValue(); err != nil {
			return nil, err
		}
	}
	if p.acceptKw("limit") {
		if s.Limit, err = p.limitValue(); err != nil {
			return nil, err
		}
	}
	if p.acceptKw("allow") {
		if err := p.expectKw("filtering"); err != nil {
			return nil, err
		}
		s.AllowFiltering = true
	}
	var u Using
	if err := p.using(&u, false); err != nil {
		return nil, err
	}
	return s, nil
}

func (p *parser) selector() (*Selector, error) {
	p.depth++
	defer func() { p.depth-- }()
	if p.depth > maxDepth {
		return nil, &SyntaxError{p.peek().Line, p.peek().Col, "selector nested too deeply"}
	}
	start := p.i
	t := p.peek()
	var sel *Selector
	switch {
	case t.Kind == TokIdent && p.peekN(1).Kind == TokPunct && p.peekN(1).Text == "(":
		name := strings.ToLower(t.Text)
		p.i += 2
		switch {
		case name == "cast":
			c, err := p.castSelector()
			if err != nil {
				return nil, err
			}
			sel = c
		case name == "count" && p.isPunct("*"):
			p.i++
			sel = &Selector{Kind: SelCountStar, Name: "count"}
		case name == "count" && p.peek().Kind == TokInteger && p.peek().Text == "1":
			p.i++
			sel = &Selector{Kind: SelCountStar, Name: "count"}
		case name == "writetime" || name == "maxwritetime" || name == "ttl":
			sel = &Selector{Kind: SelWritetime, Name: name}
			if name == "ttl" {
				sel.Kind = SelTTL
			}
			// the argument is a column, or an element or field of one (Cassandra's grammar)
			if t := p.peek(); t.Kind != TokIdent && t.Kind != TokQuotedIdent || p.isPunctAt(1, "(") {
				if t.Kind == TokIdent || t.Kind == TokQuotedIdent {
					p.i++
				}
				return nil, p.errNoViable()
			}
			a, err := p.selector()
			if err != nil {
				return nil, err
			}
			sel.Args = []*Selector{a}
		default:
			sel = &Selector{Kind: SelFunc, Name: name}
			if !p.isPunct(")") {
				for {
					if p.peek().Kind == TokIdent && p.peekN(1).Kind == TokIdent {
						// an argument is one selector (count(DISTINCT k) is no CQL)
						return nil, p.noViableAhead(0, 1)
					}
					a, err := p.selector()
					if err != nil {
						return nil, err
					}
					sel.Args = append(sel.Args, a)
					if !p.acceptPunct(",") {
						break
					}
				}
			}
		}
		if err := p.expectPunct(")"); err != nil {
			return nil, err
		}
	case (t.Kind == TokIdent && !isLiteralWord(t.Text)) || t.Kind == TokQuotedIdent: // null, true and false are terms
		if t.Kind == TokIdent && reserved[strings.ToLower(t.Text)] {
			return nil, p.errNoViable()
		}
		n, err := p.identAllowKw()
		if err != nil {
			return nil, err
		}
		sel = &Selector{Kind: SelColumn, Name: n}
	default:
		tm, err := p.term()
		if err != nil {
			return nil, err
		}
		sel = &Selector{Kind: SelTerm, Term: tm}
	}
	for {
		if p.acceptPunct(".") {
			f, err := p.identAllowKw()
			if err != nil {
				return nil, err
			}
			sel = &Selector{Kind: SelField, Args: []*Selector{sel}, Field: f}
			continue
		}
		if !p.acceptPunct("[") {
			break
		}
		el, err := p.elementSelection(sel)
		if err != nil {
			return nil, err
		}
		sel = el
	}
	sel.Pos = t
	var raw []string
	for j := start; j < p.i; j++ {
		raw = append(raw, p.toks[j].Raw)
	}
	sel.Raw = strings.Join(raw, "")
	return sel, nil
}

// castSelector parses the rest of CAST(selector AS type), after the opening parenthesis (the
// closing one is left to the caller). The grammar allows native types only.
func (p *parser) castSelector() (*Selector, error) {
	arg, err := p.selector()
	if err != nil {
		return nil, err
	}
	if !p.acceptKw("as") {
		return nil, p.errMismatch("K_AS")
	}
	t := p.peek()
	name := strings.ToLower(t.Text)
	if t.Kind != TokIdent || !isNativeTypeName(name) {
		return nil, p.errNoViable()
	}
	p.i++
	return &Selector{Kind: SelCast, Name: name, Args: []*Selector{arg}}, nil
}

// isNativeTypeName reports whether the lower-cased s names a native (not a collection, tuple,
// vector or user-defined) type.
func isNativeTypeName(s string) bool {
	switch s {
	case "list", "set", "map", "frozen", "tuple", "vector":
		return false
	}
	return isTypeName(s)
}

// elementSelection parses the rest of inner[key] or inner[from..to] (either bound may be
// left out), after the opening bracket.
func (p *parser) elementSelection(inner *Selector) (*Selector, error) {
	el := &Selector{Kind: SelElement, Args: []*Selector{inner}}
	if !p.isPunct("..") {
		k, err := p.term()
		if err != nil {
			return nil, err
		}
		el.Term = k
	}
	if p.acceptPunct("..") {
		el.Slice, el.From, el.Term = true, el.Term, nil
		if !p.isPunct("]") {
			to, err := p.term()
			if err != nil {
				return nil, err
			}
			el.To = to
		}
	}
	if el.Term == nil && el.From == nil && el.To == nil { // [..]: a slice needs a bound
		return nil, p.errNoViable()
	}
	return el, p.expectPunct("]")
}

// limitValue parses the operand of LIMIT: an integer or a bind marker.
func (p *parser) limitValue() (*Term, error) {
	switch t := p.peek(); t.Kind {
	case TokInteger:
		p.i++
		return &Term{Kind: TermInteger, Text: t.Text, Pos: t}, nil
	case TokQMark, TokNamedMarker:
		return p.bindMarker(), nil
	}
	return nil, p.errNoViable()
}

func (p *parser) batchStmt() (Statement, error) {
	p.i++ // BEGIN
	b := &Batch{}
	switch {
	case p.acceptKw("unlogged"):
		b.Type = BatchUnlogged
	case p.acceptKw("counter"):
		b.Type = BatchCounter
	case p.acceptKw("logged"):
	}
	if err := p.expectKw("batch"); err != nil {
		return nil, err
	}
	if err := p.using(&b.Using, true); err != nil {
		return nil, err
	}
	for {
		p.acceptPunct(";")
		if p.isKw("apply") {
			p.i++
			if err := p.expectKw("batch"); err != nil {
				return nil, err
			}
			return b, nil
		}
		var st Statement
		var err error
		switch {
		case p.isKw("insert"):
			st, err = p.insertStmt()
		case p.isKw("update"):
			st, err = p.updateStmt()
		case p.isKw("delete"):
			st, err = p.deleteStmt()
		default:
			return nil, p.errMismatch("K_APPLY")
		}
		if err != nil {
			return nil, err
		}
		b.Statements = append(b.Statements, st)
	}
}
