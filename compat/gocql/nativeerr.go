package gocql

import (
	"context"
	"errors"
	"net/netip"

	"github.com/cqlbridge/cqlbridge/native"
)

// convertError maps an error of the native core to the error gocql v1.7.0 returns in the same
// situation: server errors become the RequestErr* pointer types (or errorFrame values for
// those without fields), client-side conditions become gocql's sentinels. Context errors are
// returned as the plain context.Canceled / context.DeadlineExceeded values.
func convertError(err error) error {
	if err == nil {
		return nil
	}
	switch {
	case errors.Is(err, native.ErrTimeout):
		return ErrTimeoutNoResponse
	case errors.Is(err, context.Canceled):
		return context.Canceled
	case errors.Is(err, context.DeadlineExceeded):
		return context.DeadlineExceeded
	case errors.Is(err, native.ErrSessionClosed):
		return ErrSessionClosed
	}
	var nh *native.NoHostAvailableError
	if errors.As(err, &nh) {
		if len(nh.Errors) == 0 {
			return ErrNoConnections
		}
		return convertError(nh.Errors[len(nh.Errors)-1].Err)
	}
	if re := convertRequestError(err); re != nil {
		return re
	}
	if errors.Is(err, native.ErrConnClosed) {
		return ErrConnectionClosed
	}
	return err
}

func frameOf(re *native.RequestError) errorFrame {
	return newErrorFrame(int(re.Code), re.Message)
}

func errorMap(m map[netip.Addr]uint16) ErrorMap {
	if m == nil {
		return nil
	}
	out := make(ErrorMap, len(m))
	for a, c := range m {
		out[a.String()] = c
	}
	return out
}

// convertRequestError converts a server error; nil when err is not one.
func convertRequestError(err error) error {
	var (
		unavailable   *native.UnavailableError
		writeTimeout  *native.WriteTimeoutError
		readTimeout   *native.ReadTimeoutError
		readFailure   *native.ReadFailureError
		writeFailure  *native.WriteFailureError
		funcFailure   *native.FunctionFailureError
		alreadyExists *native.AlreadyExistsError
		unprepared    *native.UnpreparedError
		cdc           *native.CDCWriteFailureError
		casUnknown    *native.CASWriteUnknownError
		re            *native.RequestError
	)
	switch {
	case errors.As(err, &unavailable):
		return &RequestErrUnavailable{errorFrame: frameOf(&unavailable.RequestError),
			Consistency: Consistency(unavailable.Consistency), Required: unavailable.Required, Alive: unavailable.Alive}
	case errors.As(err, &writeTimeout):
		return &RequestErrWriteTimeout{errorFrame: frameOf(&writeTimeout.RequestError),
			Consistency: Consistency(writeTimeout.Consistency), Received: writeTimeout.Received,
			BlockFor: writeTimeout.BlockFor, WriteType: writeTimeout.WriteType}
	case errors.As(err, &readTimeout):
		var present byte
		if readTimeout.DataPresent {
			present = 1
		}
		return &RequestErrReadTimeout{errorFrame: frameOf(&readTimeout.RequestError),
			Consistency: Consistency(readTimeout.Consistency), Received: readTimeout.Received,
			BlockFor: readTimeout.BlockFor, DataPresent: present}
	case errors.As(err, &readFailure):
		return &RequestErrReadFailure{errorFrame: frameOf(&readFailure.RequestError),
			Consistency: Consistency(readFailure.Consistency), Received: readFailure.Received,
			BlockFor: readFailure.BlockFor, NumFailures: readFailure.NumFailures,
			DataPresent: readFailure.DataPresent, ErrorMap: errorMap(readFailure.Reasons)}
	case errors.As(err, &writeFailure):
		return &RequestErrWriteFailure{errorFrame: frameOf(&writeFailure.RequestError),
			Consistency: Consistency(writeFailure.Consistency), Received: writeFailure.Received,
			BlockFor: writeFailure.BlockFor, NumFailures: writeFailure.NumFailures,
			WriteType: writeFailure.WriteType, ErrorMap: errorMap(writeFailure.Reasons)}
	case errors.As(err, &funcFailure):
		return &RequestErrFunctionFailure{errorFrame: frameOf(&funcFailure.RequestError),
			Keyspace: funcFailure.Keyspace, Function: funcFailure.Function, ArgTypes: funcFailure.ArgTypes}
	case errors.As(err, &alreadyExists):
		return &RequestErrAlreadyExists{errorFrame: frameOf(&alreadyExists.RequestError),
			Keyspace: alreadyExists.Keyspace, Table: alreadyExists.Table}
	case errors.As(err, &unprepared):
		return &RequestErrUnprepared{errorFrame: frameOf(&unprepared.RequestError), StatementId: unprepared.ID}
	case errors.As(err, &cdc):
		return &RequestErrCDCWriteFailure{errorFrame: frameOf(&cdc.RequestError)}
	case errors.As(err, &casUnknown):
		return &RequestErrCASWriteUnknown{errorFrame: frameOf(&casUnknown.RequestError),
			Consistency: Consistency(casUnknown.Consistency), Received: casUnknown.Received, BlockFor: casUnknown.BlockFor}
	case errors.As(err, &re):
		return frameOf(re)
	}
	return nil
}

// convertAttemptError is convertError for one attempt run under ctx: a deadline that is not
// ctx's own is the per-attempt timeout (ClusterConfig.Timeout), which gocql reports as
// ErrTimeoutNoResponse.
func convertAttemptError(ctx context.Context, err error) error {
	err = convertError(err)
	if err == context.DeadlineExceeded && ctx.Err() == nil {
		return ErrTimeoutNoResponse
	}
	return err
}
