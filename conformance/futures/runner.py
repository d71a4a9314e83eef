#!/usr/bin/env python3
"""Runs the future conformance scenarios (scenarios.json) on the legacy DataStax Python driver
(cassandra-driver 3.29.2) and prints one JSON trace per scenario.

Usage: runner.py SCENARIOS_JSON KEYSPACE HOST[,HOST...] [NAME,...]
(hosts as host or host:port; the names, when given, select the scenarios to run). The scenarios of
faults.json are run by faults_test.go on cqlsim clusters with injected faults.

The trace format, the step operations and the callback actions are described in scenario.go;
the Go runner (gorunner_test.go) produces the same format from package future.
"""
import json
import sys
import threading
import time

from cassandra import (AlreadyExists, DriverException, InvalidRequest, OperationTimedOut,
                       ReadFailure, ReadTimeout, Unavailable, WriteTimeout)
from cassandra.cluster import EXEC_PROFILE_DEFAULT, Cluster, ExecutionProfile, NoHostAvailable
from cassandra.policies import ConstantSpeculativeExecutionPolicy, RetryPolicy
from cassandra.protocol import SyntaxException
from cassandra.query import SimpleStatement

try:
    from cassandra.cluster import QueryExhausted
except ImportError:  # older layouts
    from cassandra.query import QueryExhausted


MAX_RUNS = 5  # as futures.MaxRuns
SLOW_CALLBACK = 0.3  # seconds a "slow_has_more_pages" callback waits (as futures.slowCallback)


class IgnoreRetryPolicy(RetryPolicy):
    """A step's "retry": "ignore": every retry decision is IGNORE."""

    def on_read_timeout(self, *args, **kwargs):
        return self.IGNORE, None

    on_write_timeout = on_unavailable = on_request_error = on_read_timeout


class CallbackRaised(Exception):
    """What a callback or errback with action "raise" raises."""


def error_class(exc):
    # Report the class the application would catch, by the driver's public names.
    for cls in (CallbackRaised, SyntaxException, InvalidRequest, AlreadyExists, QueryExhausted,
                OperationTimedOut, Unavailable, ReadTimeout, WriteTimeout, ReadFailure,
                NoHostAvailable):
        if isinstance(exc, cls):
            return cls.__name__
    if isinstance(exc, StopIteration):
        return "StopIteration"
    if isinstance(exc, DriverException):
        return "DriverException"
    return "Other:" + type(exc).__name__


def render_value(v):
    if v is None:
        return "null"
    if isinstance(v, bool):
        return "true" if v else "false"
    return str(v)


def render_rows(rows):
    if rows is None:
        return None
    return ["|".join(render_value(v) for v in row) for row in rows]


class Run:
    def __init__(self, session, scenario, keyspace):
        self.session = session
        self.sc = scenario
        self.ks = keyspace
        self.lock = threading.Lock()
        self.callbacks = []
        self.steps = []
        self.future = None
        self.rs = None
        self.page = 1
        self.adding = None  # (thread ident, id) while an add step runs

    def stmt_text(self, step):
        return step.get("statement", self.sc.get("statement", "")).replace("{ks}", self.ks)

    def record(self, ev):
        with self.lock:
            self.callbacks.append(ev)

    def mark_inline(self, ev, ident):
        # "inline" is recorded only for a function that runs inside its own add step, when that
        # step is marked "after" (the outcome is known, so running inline is deterministic).
        a = self.adding
        if a is not None and a[0] == threading.get_ident() and ident in a[1] and a[2]:
            ev["inline"] = True

    def make_callback(self, ident, action):
        def cb(rows):
            ev = {"kind": "callback", "id": ident, "page": self.page, "rows": render_rows(rows)}
            if action == "slow_has_more_pages":
                # Gives a next page started by an earlier callback time to arrive first.
                time.sleep(SLOW_CALLBACK)
                ev["has_more_pages"] = self.future.has_more_pages
            self.mark_inline(ev, ident)
            self.record(ev)
            if action == "raise":
                raise CallbackRaised(ident)
            if action == "fetch_next" and self.future.has_more_pages:
                self.page += 1
                self.future.start_fetching_next_page()
        return cb

    def make_errback(self, ident, action):
        def eb(exc):
            ev = {"kind": "errback", "id": ident, "page": self.page, "error": error_class(exc)}
            self.mark_inline(ev, ident)
            self.record(ev)
            if action == "raise":
                raise CallbackRaised(ident)
        return eb

    def step_event(self, op, **kw):
        ev = {"op": op}
        ev.update(kw)
        self.steps.append(ev)

    def guarded(self, op, fn):
        try:
            return fn()
        except Exception as exc:  # recorded, the scenario goes on
            self.step_event(op, error=error_class(exc))
            return None

    def run(self):
        for step in self.sc["steps"]:
            op = step["op"]
            getattr(self, "op_" + op)(step)
        return {"steps": self.steps, "callbacks": self.callbacks}

    # ---- operations ----
    def op_execute(self, step):
        stmt = SimpleStatement(self.stmt_text(step), fetch_size=step.get("page_size", self.sc.get("page_size")))
        kw = {}
        if "timeout" in step:
            kw["timeout"] = step["timeout"]
        if step.get("trace"):
            kw["trace"] = True
        spec = step.get("speculative")
        if spec:
            stmt.is_idempotent = True
            name = "speculative-%s-%s" % (spec["delay"], spec["attempts"])
            cluster = self.session.cluster
            if name not in cluster.profile_manager.profiles:
                cluster.add_execution_profile(name, ExecutionProfile(
                    request_timeout=DEFAULT_TIMEOUT,
                    speculative_execution_policy=ConstantSpeculativeExecutionPolicy(spec["delay"], spec["attempts"])))
            kw["execution_profile"] = name
        retry = step.get("retry")
        if retry == "ignore":
            stmt.retry_policy = IgnoreRetryPolicy()
        elif retry:
            self.step_event("execute", error="UnknownRetry:" + retry)
            return
        if step.get("resume"):
            if self.rs is None:
                self.step_event("execute", error="NoResultSet")
                return
            kw["paging_state"] = self.rs.paging_state
        self.page = 1
        self.future = self.session.execute_async(stmt, **kw)

    def _add(self, step, fn):
        self.adding = (threading.get_ident(), (step.get("id"), step.get("eid")), bool(step.get("after")))
        try:
            ret = fn()
        except Exception as exc:
            self.step_event(step["op"], error=error_class(exc))
            ret = "raised"
        finally:
            self.adding = None
        return ret

    def op_add_callback(self, step):
        cb = self.make_callback(step["id"], step.get("action", "record"))
        ret = self._add(step, lambda: self.future.add_callback(cb))
        if step.get("record_return"):
            self.step_event("add_callback", returns_future=ret is self.future)

    def op_add_errback(self, step):
        eb = self.make_errback(step["id"], step.get("action", "record"))
        ret = self._add(step, lambda: self.future.add_errback(eb))
        if step.get("record_return"):
            self.step_event("add_errback", returns_future=ret is self.future)

    def op_add_callbacks(self, step):
        cb = self.make_callback(step["id"], step.get("action", "record"))
        eb = self.make_errback(step["eid"], step.get("eaction", "record"))
        ret = self._add(step, lambda: self.future.add_callbacks(cb, eb))
        if step.get("record_return"):
            self.step_event("add_callbacks", returns_future=ret is self.future)

    def op_wait(self, step):
        n = step["events"]
        deadline = time.time() + (step.get("timeout") or DEFAULT_TIMEOUT)
        while time.time() < deadline:
            with self.lock:
                if len(self.callbacks) >= n:
                    break
            time.sleep(0.002)
        else:
            self.step_event("wait", error="WaitTimeout", have=len(self.callbacks), want=n)
        if step.get("settle"):
            time.sleep(step["settle"])

    def op_result(self, step):
        def f():
            rs = self.future.result()
            self.rs = rs
            self.step_event("result", rows=render_rows(rs.current_rows), has_more_pages=rs.has_more_pages)
        self.guarded("result", f)

    def op_result_identity(self, step):
        def f():
            a = self.future.result()
            b = self.future.result()
            self.step_event("result_identity", distinct=a is not b, same_future=a.response_future is b.response_future)
        self.guarded("result_identity", f)

    def op_result_as_old(self, step):
        def f():
            self.old = self.future.result()
        self.guarded("result_as_old", f)

    def op_old_current_rows(self, step):
        self.step_event("old_current_rows", rows=render_rows(self.old.current_rows))

    def op_old_paging_state(self, step):
        self.step_event("old_paging_state", present=bool(self.old.paging_state))

    def op_has_more_pages(self, step):
        self.step_event("has_more_pages", value=self.future.has_more_pages)

    def op_start_fetching_next_page(self, step):
        def f():
            self.page += 1
            try:
                self.future.start_fetching_next_page()
            except Exception:
                self.page -= 1
                raise
            self.step_event("start_fetching_next_page", ok=True)
        self.guarded("start_fetching_next_page", f)

    def op_warnings(self, step):
        self.guarded("warnings", lambda: self.step_event("warnings", value=self.future.warnings))

    def op_custom_payload(self, step):
        self.guarded("custom_payload", lambda: self.step_event("custom_payload", value=self.future.custom_payload))

    def op_trace_id(self, step):
        def f():
            ids = self.future.get_query_trace_ids()
            self.step_event("trace_id", present=bool(ids))
        self.guarded("trace_id", f)

    def op_clear_callbacks(self, step):
        self.future.clear_callbacks()

    def op_rs_current_rows(self, step):
        self.step_event("rs_current_rows", rows=render_rows(self.rs.current_rows))

    def op_rs_iter(self, step):
        iter(self.rs)

    def op_rs_next(self, step):
        out = []
        for _ in range(step.get("n", 1)):
            try:
                out.append(render_rows([next(self.rs)])[0])
            except StopIteration:
                out.append("<end>")
                break
            except Exception as exc:
                out.append("<error:%s>" % error_class(exc))
                break
        self.step_event("rs_next", rows=out)

    def op_rs_all(self, step):
        self.guarded("rs_all", lambda: self.step_event("rs_all", rows=render_rows(self.rs.all())))

    def op_rs_one(self, step):
        row = self.rs.one()
        self.step_event("rs_one", row=None if row is None else render_rows([row])[0])

    def op_rs_fetch_next_page(self, step):
        def f():
            if self.rs.has_more_pages:
                self.page += 1
            self.rs.fetch_next_page()
            self.step_event("rs_fetch_next_page", rows=render_rows(self.rs.current_rows))
        self.guarded("rs_fetch_next_page", f)

    def op_rs_has_more_pages(self, step):
        self.step_event("rs_has_more_pages", value=self.rs.has_more_pages)

    def op_rs_paging_state(self, step):
        self.step_event("rs_paging_state", present=bool(self.rs.paging_state))

    def op_rs_was_applied(self, step):
        def f():
            self.step_event("rs_was_applied", value=bool(self.rs.was_applied))
        try:
            f()
        except Exception as exc:
            self.step_event("rs_was_applied", error="RuntimeError" if isinstance(exc, RuntimeError) else error_class(exc))

    def op_rs_query_trace(self, step):
        self.guarded("rs_query_trace", lambda: self.step_event("rs_query_trace", present=self.rs.get_query_trace() is not None))

    def op_rs_column_names(self, step):
        self.step_event("rs_column_names", value=list(self.rs.column_names or []))

    def op_rs_bool(self, step):
        self.step_event("rs_bool", value=bool(self.rs))

    def op_sleep(self, step):
        time.sleep(step["seconds"])


# The request timeout of steps that set none, and how long a wait step waits for callbacks.
DEFAULT_TIMEOUT = 30


def main():
    path, keyspace, hosts = sys.argv[1], sys.argv[2], sys.argv[3]
    with open(path) as f:
        scenarios = json.load(f)
    contact, port = [], 9042
    for h in hosts.split(","):
        host, _, p = h.rpartition(":") if ":" in h else (h, "", "")
        contact.append(host or h)
        if p:
            port = int(p)
    # Scenarios that test timeouts set their own; the others must not time out on a busy
    # machine (DDL on a loaded node can take seconds), so the default is raised from 10 s, as
    # the Go runner does. Execution profiles (not the legacy session.default_timeout) so that
    # scenarios can add their own (speculative execution).
    cluster = Cluster(contact, port=port, protocol_version=4,
                      execution_profiles={EXEC_PROFILE_DEFAULT: ExecutionProfile(request_timeout=DEFAULT_TIMEOUT)})
    session = cluster.connect()
    out = {}
    only = set(sys.argv[4].split(",")) if len(sys.argv) > 4 and sys.argv[4] else None
    # Scenarios on several nodes (faults.json) need every node in the query plans: wait until
    # the session has a pool for each, as the Go side waits until each node has served.
    nodes = max([sc.get("nodes", 1) for sc in scenarios if not only or sc["name"] in only] or [1])
    deadline = time.time() + 60
    while True:
        up = [h for h, state in session.get_pool_state().items() if h.is_up and state.get("open_count", 0) > 0]
        if len(up) >= nodes:
            break
        if time.time() > deadline:
            raise SystemExit("runner.py: only %d of %d nodes have an open pool after 60 s" % (len(up), nodes))
        time.sleep(0.05)
    for sc in scenarios:
        if only and sc["name"] not in only:
            continue
        # rerun_if: events showing the timing precondition did not hold (scenario.go, RerunIf):
        # callback events, and step events matched by their op and error.
        def raced(trace):
            rerun = sc.get("rerun_if", [])
            steps = [r for r in rerun if "op" in r]
            if any(s.get("op") == r["op"] and s.get("error") == r.get("error") for r in steps for s in trace["steps"]):
                return True
            return any(ev in rerun for ev in trace["callbacks"])
        trace = Run(session, sc, keyspace).run()
        for _ in range(MAX_RUNS - 1):
            if not raced(trace):
                break
            trace = Run(session, sc, keyspace).run()
        out[sc["name"]] = trace
    cluster.shutdown()
    json.dump(out, sys.stdout, indent=1, sort_keys=True)


if __name__ == "__main__":
    main()
