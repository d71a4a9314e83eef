package cql

import (
	"fmt"
	"strings"
	"unicode/utf8"
)

// TokenKind classifies a lexical token.
type TokenKind int

// The token kinds.
const (
	TokEOF TokenKind = iota
	TokIdent
	TokQuotedIdent
	TokString
	TokInteger
	TokFloat
	TokHex
	TokUUID
	TokDuration
	TokQMark
	TokNamedMarker
	TokPunct
)

// Token is one lexical token with its 1-based line and 0-based column, as Cassandra reports them.
type Token struct {
	Kind   TokenKind
	Text   string // identifiers as written (unquoted for quoted ones), string contents unescaped
	Raw    string // source text of the token
	Line   int
	Col    int  // in characters, 0-based
	Off    int  // byte offset in the statement
	Index  int  // position in the token stream, whitespace and comments included
	Hidden bool // whitespace or comment
}

// SyntaxError is a lexical or grammatical error in a statement.
type SyntaxError struct {
	Line, Col int
	Msg       string
}

// Error formats the error as Cassandra does: "line L:C message", or the message alone for the
// errors Cassandra's parser raises itself (Line < 0).
func (e *SyntaxError) Error() string {
	if e.Line < 0 {
		return e.Msg
	}
	return fmt.Sprintf("line %d:%d %s", e.Line, e.Col, e.Msg)
}

type lexer struct {
	src       string
	pos       int
	line, col int
}

func isIdentStart(c byte) bool { return c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') }
func isIdentChar(c byte) bool  { return isIdentStart(c) || (c >= '0' && c <= '9') }
func isDigit(c byte) bool      { return c >= '0' && c <= '9' }
func isHex(c byte) bool {
	return isDigit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F')
}

// Lex splits src into tokens, whitespace and comments included (marked Hidden, as the
// hidden channel of Cassandra's lexer). The final token has kind TokEOF.
func Lex(src string) ([]Token, error) {
	lx := &lexer{src: src, line: 1}
	var toks []Token
	for {
		var t Token
		var err error
		if h, ok, herr := lx.hidden(); herr != nil {
			return nil, herr
		} else if ok {
			t = h
		} else if t, err = lx.next(); err != nil {
			return nil, err
		}
		t.Index = len(toks)
		toks = append(toks, t)
		if t.Kind == TokEOF {
			return toks, nil
		}
	}
}

// hidden consumes one run of whitespace or one comment.
func (lx *lexer) hidden() (Token, bool, error) {
	start, line, col := lx.pos, lx.line, lx.col
	if err := lx.skipOne(); err != nil {
		return Token{}, false, err
	}
	if lx.pos == start {
		return Token{}, false, nil
	}
	return Token{Kind: TokPunct, Raw: lx.src[start:lx.pos], Text: lx.src[start:lx.pos], Line: line, Col: col, Off: start, Hidden: true}, true, nil
}

// eofError reports a lexical error at the end of the input, as ANTLR does for unterminated
// literals.
func (lx *lexer) eofError(expecting string) error {
	end := &lexer{src: lx.src, line: 1}
	end.advance(len(lx.src))
	return &SyntaxError{end.line, end.col, fmt.Sprintf("mismatched character '<EOF>' expecting %s", expecting)}
}

func (lx *lexer) advance(n int) {
	for i := 0; i < n && lx.pos < len(lx.src); i++ {
		c := lx.src[lx.pos]
		if c == '\n' {
			lx.line++
			lx.col = 0
		} else if c&0xC0 != 0x80 {
			lx.col++
		}
		lx.pos++
	}
}

// skipOne consumes one whitespace run or one comment, if any.
func (lx *lexer) skipOne() error {
	if lx.pos >= len(lx.src) {
		return nil
	}
	isSpace := func(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' }
	c := lx.src[lx.pos]
	switch {
	case isSpace(c):
		for lx.pos < len(lx.src) && isSpace(lx.src[lx.pos]) {
			lx.advance(1)
		}
	case c == '-' && strings.HasPrefix(lx.src[lx.pos:], "--"), c == '/' && strings.HasPrefix(lx.src[lx.pos:], "//"):
		for lx.pos < len(lx.src) && lx.src[lx.pos] != '\n' {
			lx.advance(1)
		}
		lx.advance(1)
	case c == '/' && strings.HasPrefix(lx.src[lx.pos:], "/*"):
		end := strings.Index(lx.src[lx.pos+2:], "*/")
		if end < 0 {
			return lx.eofError("'*'")
		}
		lx.advance(end + 4)
	}
	return nil
}

// uuidLen reports whether s starts with a UUID literal (8-4-4-4-12 hex digits).
func uuidLen(s string) bool {
	if len(s) < 36 {
		return false
	}
	for i := 0; i < 36; i++ {
		switch i {
		case 8, 13, 18, 23:
			if s[i] != '-' {
				return false
			}
		default:
			if !isHex(s[i]) {
				return false
			}
		}
	}
	return len(s) == 36 || !isIdentChar(s[36])
}

var durationUnits = []string{"mo", "ms", "us", "µs", "ns", "y", "w", "d", "h", "m", "s"}

// durationLen returns the length of a "1h30m"-style duration at s (digits then unit), or 0.
func durationLen(s string) int {
	i := 0
	groups := 0
	for i < len(s) && isDigit(s[i]) {
		j := i
		for j < len(s) && isDigit(s[j]) {
			j++
		}
		matched := false
		for _, u := range durationUnits {
			if len(s)-j >= len(u) && strings.EqualFold(s[j:j+len(u)], u) {
				j += len(u)
				matched = true
				break
			}
		}
		if !matched {
			break
		}
		groups++
		i = j
	}
	if groups == 0 || (i < len(s) && isIdentChar(s[i])) {
		return 0
	}
	return i
}

func (lx *lexer) next() (Token, error) {
	t := Token{Line: lx.line, Col: lx.col, Off: lx.pos}
	if lx.pos >= len(lx.src) {
		t.Kind = TokEOF
		t.Raw = "<EOF>"
		return t, nil
	}
	start := lx.pos
	rest := lx.src[lx.pos:]
	c := rest[0]
	emit := func(k TokenKind, n int, text string) (Token, error) {
		t.Kind = k
		t.Raw = lx.src[start : start+n]
		t.Text = text
		lx.advance(n)
		return t, nil
	}
	switch {
	case uuidLen(rest):
		return emit(TokUUID, 36, rest[:36])
	case c == '0' && len(rest) > 1 && (rest[1] == 'x' || rest[1] == 'X'):
		n := 2
		for n < len(rest) && isHex(rest[n]) {
			n++
		}
		return emit(TokHex, n, rest[:n])
	case isDigit(c) || (c == '-' && len(rest) > 1 && (isDigit(rest[1]) || strings.HasPrefix(rest[1:], "NaN") || strings.HasPrefix(rest[1:], "Infinity"))):
		if c == '-' && !isDigit(rest[1]) {
			n := 4
			if rest[1] == 'I' {
				n = 9
			}
			return emit(TokFloat, n, rest[:n])
		}
		if d := durationLen(strings.TrimPrefix(rest, "-")); d > 0 {
			if c == '-' {
				d++
			}
			return emit(TokDuration, d, rest[:d])
		}
		n := 0
		if c == '-' {
			n = 1
		}
		for n < len(rest) && isDigit(rest[n]) {
			n++
		}
		kind := TokInteger
		if n < len(rest) && rest[n] == '.' && !(n+1 < len(rest) && rest[n+1] == '.') {
			kind = TokFloat
			n++
			for n < len(rest) && isDigit(rest[n]) {
				n++
			}
		}
		if n < len(rest) && (rest[n] == 'e' || rest[n] == 'E') {
			m := n + 1
			if m < len(rest) && (rest[m] == '+' || rest[m] == '-') {
				m++
			}
			if m < len(rest) && isDigit(rest[m]) {
				for m < len(rest) && isDigit(rest[m]) {
					m++
				}
				kind = TokFloat
				n = m
			}
		}
		return emit(kind, n, rest[:n])
	case isIdentStart(c):
		n := 1
		for n < len(rest) && isIdentChar(rest[n]) {
			n++
		}
		word := rest[:n]
		if (word[0] == 'P' || word[0] == 'p') && isISODuration(word) {
			return emit(TokDuration, n, word)
		}
		if word == "NaN" || word == "Infinity" {
			return emit(TokFloat, n, word)
		}
		return emit(TokIdent, n, word)
	case c == '"':
		var sb strings.Builder
		n := 1
		for {
			if n >= len(rest) {
				return Token{}, lx.eofError(`'"'`)
			}
			if rest[n] == '"' {
				if n+1 < len(rest) && rest[n+1] == '"' {
					sb.WriteByte('"')
					n += 2
					continue
				}
				n++
				break
			}
			sb.WriteByte(rest[n])
			n++
		}
		if sb.Len() == 0 {
			return Token{}, &SyntaxError{t.Line, t.Col, "empty quoted identifier"}
		}
		return emit(TokQuotedIdent, n, sb.String())
	case c == '\'':
		var sb strings.Builder
		n := 1
		for {
			if n >= len(rest) {
				return Token{}, lx.eofError("'''")
			}
			if rest[n] == '\'' {
				if n+1 < len(rest) && rest[n+1] == '\'' {
					sb.WriteByte('\'')
					n += 2
					continue
				}
				n++
				break
			}
			sb.WriteByte(rest[n])
			n++
		}
		if !utf8.ValidString(sb.String()) {
			return Token{}, &SyntaxError{t.Line, t.Col, "invalid UTF-8 in string literal"}
		}
		return emit(TokString, n, sb.String())
	case c == '$' && strings.HasPrefix(rest, "$$"):
		end := strings.Index(rest[2:], "$$")
		if end < 0 {
			return Token{}, lx.eofError("'$'")
		}
		return emit(TokString, end+4, rest[2:2+end])
	case c == '?':
		return emit(TokQMark, 1, "?")
	case c == ':' && len(rest) > 1 && (isIdentStart(rest[1]) || rest[1] == '"'):
		if rest[1] == '"' {
			end := strings.IndexByte(rest[2:], '"')
			if end <= 0 {
				return Token{}, &SyntaxError{t.Line, t.Col, "bad named bind marker"}
			}
			return emit(TokNamedMarker, end+3, rest[2:2+end])
		}
		n := 2
		for n < len(rest) && isIdentChar(rest[n]) {
			n++
		}
		return emit(TokNamedMarker, n, strings.ToLower(rest[1:n]))
	}
	for _, p := range []string{"<=", ">=", "!=", "..", "<", ">", "=", "(", ")", "[", "]", "{", "}", ",", ";", ".", "*", "+", "-", ":", "/", "%"} {
		if strings.HasPrefix(rest, p) {
			return emit(TokPunct, len(p), p)
		}
	}
	r, size := utf8.DecodeRuneInString(rest)
	if r == utf8.RuneError && size <= 1 {
		size = 1
	}
	return Token{}, &SyntaxError{t.Line, t.Col, fmt.Sprintf("token recognition error at: '%s'", rest[:size])}
}

// isISODuration reports whether w looks like an ISO-8601 duration such as P1Y2M3DT4H5M6S or P2W.
func isISODuration(w string) bool {
	if len(w) < 3 {
		return false
	}
	s := strings.ToUpper(w[1:])
	digits := false
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case isDigit(c):
			digits = true
		case strings.IndexByte("YMDWHST", c) >= 0:
			if c != 'T' && !digits {
				return false
			}
			digits = false
		default:
			return false
		}
	}
	return !digits
}
