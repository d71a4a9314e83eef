package trace

import "context"

var (
	contextCanceled = context.Canceled
	contextDeadline = context.DeadlineExceeded
)
