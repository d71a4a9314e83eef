package gocql

import "log"

// StdLogger is the logging interface gocql writes its diagnostics to; *log.Logger satisfies it.
type StdLogger interface {
	Print(v ...interface{})
	Printf(format string, v ...interface{})
	Println(v ...interface{})
}

// Logger is the package-level logger used when ClusterConfig.Logger is nil. It writes through
// the standard library's log package, as gocql's does.
var Logger StdLogger = &defaultLogger{}

// defaultLogger forwards to the standard library's package-level logger.
type defaultLogger struct{}

func (l *defaultLogger) Print(v ...interface{})                 { log.Print(v...) }
func (l *defaultLogger) Printf(format string, v ...interface{}) { log.Printf(format, v...) }
func (l *defaultLogger) Println(v ...interface{})               { log.Println(v...) }
