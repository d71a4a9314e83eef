package callbacks

import "fmt"

// PanicError carries a panic recovered from a callback or an errback.
type PanicError struct {
	// Value is the value passed to panic.
	Value any
	// Errback is true when the panicking function was an errback.
	Errback bool
	// Index is the function's position in its registration list, or -1 when it ran immediately
	// inside an Add method.
	Index int
	// Stack is the panicking goroutine's stack at the time of the recovery.
	Stack []byte
}

// Kind returns "callback" or "errback".
func (e *PanicError) Kind() string {
	if e.Errback {
		return "errback"
	}
	return "callback"
}

// Error describes the panic.
func (e *PanicError) Error() string {
	if e.Index < 0 {
		return fmt.Sprintf("callbacks: %s added after completion panicked: %v", e.Kind(), e.Value)
	}
	return fmt.Sprintf("callbacks: %s #%d panicked: %v", e.Kind(), e.Index, e.Value)
}

// Unwrap returns the panic value when it is an error, so errors.Is and errors.As see through it.
func (e *PanicError) Unwrap() error {
	err, _ := e.Value.(error)
	return err
}
