"""Runs the cqlsim acceptance scenario with the Python cassandra-driver.

Usage: python scenario.py HOST:PORT[,HOST:PORT...] [--expect-compression] [--expect-protocol=N]
       python scenario.py HOST:PORT[,...] --auth=USER:PASSWORD [--expect-auth-failure]

Connects with the driver's default settings (only the contact points and port are given). The
driver compresses frames by default when the lz4 module is installed (scripts/install-drivers
installs it); --expect-compression fails the run unless the connections really negotiated
compression; --expect-protocol=N fails it unless the driver negotiated protocol version N. Then
it runs DDL, unprepared and prepared DML,
a 1,000-row paged read, LWT insert and update, a logged batch, a counter update, and UDT and tuple
round trips, checking every answer. Prints "python scenario: OK" and exits 0 on success; any
mismatch raises and exits non-zero.
"""

import sys
import uuid

from cassandra.auth import PlainTextAuthProvider
from cassandra.cluster import Cluster, NoHostAvailable
from cassandra.query import BatchStatement, BatchType, SimpleStatement


def check(what, got, want):
    if got != want:
        raise AssertionError("%s: got %r, want %r" % (what, got, want))


def auth_check(hosts, port, user, password, expect_failure):
    """Connects with PasswordAuthenticator credentials and runs one query, or expects the
    server to refuse them with its authentication error."""
    cluster = Cluster(contact_points=hosts, port=port,
                      auth_provider=PlainTextAuthProvider(username=user, password=password))
    try:
        session = cluster.connect()
    except NoHostAvailable as e:
        if not expect_failure:
            raise
        if "Provided username and/or password are incorrect" not in str(e):
            raise AssertionError("refused without the server's message: %s" % e)
        print("python scenario: OK (bad credentials refused)")
        return
    if expect_failure:
        raise AssertionError("bad credentials were accepted")
    check("release_version after authentication", session.execute(
        "SELECT release_version FROM system.local").one() is not None, True)
    cluster.shutdown()
    print("python scenario: OK (authenticated)")


def main():
    hosts = sys.argv[1].split(",")
    for arg in sys.argv[2:]:
        if arg.startswith("--auth="):
            user, password = arg.split("=", 1)[1].split(":", 1)
            auth_check([h.rsplit(":", 1)[0] for h in hosts], int(hosts[0].rsplit(":", 1)[1]),
                       user, password, "--expect-auth-failure" in sys.argv[2:])
            return
    expect_compression = "--expect-compression" in sys.argv[2:]
    addrs = [h.rsplit(":", 1)[0] for h in hosts]
    port = int(hosts[0].rsplit(":", 1)[1])
    cluster = Cluster(contact_points=addrs, port=port)
    session = cluster.connect()
    compression = cluster.control_connection._connection.compressor is not None
    if expect_compression:
        check("control connection compresses", compression, True)
    for arg in sys.argv[2:]:
        if arg.startswith("--expect-protocol="):
            check("negotiated protocol version", cluster.protocol_version, int(arg.split("=", 1)[1]))
    ks = "py_" + uuid.uuid4().hex[:12]

    # DDL
    session.execute(
        "CREATE KEYSPACE %s WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}" % ks)
    session.set_keyspace(ks)
    session.execute("CREATE TYPE addr (street text, zip int)")
    session.execute("CREATE TABLE kv (k int PRIMARY KEY, v text)")
    session.execute("CREATE TABLE rows (p int, c int, v text, PRIMARY KEY (p, c))")
    session.execute("CREATE TABLE counters (k text PRIMARY KEY, n counter)")
    session.execute("CREATE TABLE things (k int PRIMARY KEY, a frozen<addr>, t tuple<int, text>)")

    # Unprepared DML (values interpolated client-side) and prepared DML.
    session.execute("INSERT INTO kv (k, v) VALUES (%s, %s)", (1, "one"))
    ins = session.prepare("INSERT INTO kv (k, v) VALUES (?, ?)")
    session.execute(ins, (2, "two"))
    sel = session.prepare("SELECT v FROM kv WHERE k = ?")
    check("prepared read of k=1", session.execute(sel, (1,)).one().v, "one")
    check("unprepared read of k=2", session.execute("SELECT v FROM kv WHERE k = 2").one().v, "two")
    session.execute("UPDATE kv SET v = %s WHERE k = %s", ("uno", 1))
    check("read after update", session.execute(sel, (1,)).one().v, "uno")
    session.execute("DELETE FROM kv WHERE k = %s", (2,))
    check("read after delete", session.execute(sel, (2,)).one(), None)

    # 1,000 rows, read back in pages of 100.
    ins_row = session.prepare("INSERT INTO rows (p, c, v) VALUES (?, ?, ?)")
    futures = [session.execute_async(ins_row, (7, c, "v%d" % c)) for c in range(1000)]
    for f in futures:
        f.result()
    stmt = SimpleStatement("SELECT c, v FROM rows WHERE p = 7", fetch_size=100)
    result = session.execute(stmt)
    check("first page size", len(result.current_rows), 100)
    check("has more pages", result.has_more_pages, True)
    cs = [row.c for row in result]
    check("paged row count", len(cs), 1000)
    check("clustering order", cs, list(range(1000)))

    # LWT insert and update.
    r = session.execute("INSERT INTO kv (k, v) VALUES (10, 'ten') IF NOT EXISTS")
    check("LWT insert applied", r.was_applied, True)
    r = session.execute("INSERT INTO kv (k, v) VALUES (10, 'TEN') IF NOT EXISTS")
    check("LWT insert of an existing row applied", r.was_applied, False)
    check("LWT existing value", r.one().v, "ten")
    r = session.execute("UPDATE kv SET v = 'dix' WHERE k = 10 IF v = 'ten'")
    check("LWT update applied", r.was_applied, True)
    r = session.execute("UPDATE kv SET v = 'zehn' WHERE k = 10 IF v = 'ten'")
    check("LWT update with a false condition applied", r.was_applied, False)
    check("value after LWT", session.execute(sel, (10,)).one().v, "dix")

    # Logged batch.
    batch = BatchStatement(batch_type=BatchType.LOGGED)
    batch.add(ins, (20, "twenty"))
    batch.add(SimpleStatement("INSERT INTO kv (k, v) VALUES (21, 'twenty-one')"))
    session.execute(batch)
    check("batch row 20", session.execute(sel, (20,)).one().v, "twenty")
    check("batch row 21", session.execute(sel, (21,)).one().v, "twenty-one")

    # Counter update.
    inc = session.prepare("UPDATE counters SET n = n + ? WHERE k = ?")
    session.execute(inc, (5, "hits"))
    session.execute("UPDATE counters SET n = n + 2 WHERE k = 'hits'")
    check("counter", session.execute("SELECT n FROM counters WHERE k = 'hits'").one().n, 7)

    # UDT and tuple round trips.
    class Addr(object):
        def __init__(self, street=None, zip=None):
            self.street = street
            self.zip = zip

    cluster.register_user_type(ks, "addr", Addr)
    ins_thing = session.prepare("INSERT INTO things (k, a, t) VALUES (?, ?, ?)")
    session.execute(ins_thing, (1, Addr("Main St", 12345), (3, "three")))
    row = session.execute("SELECT a, t FROM things WHERE k = 1").one()
    check("udt street", row.a.street, "Main St")
    check("udt zip", row.a.zip, 12345)
    check("tuple", row.t, (3, "three"))

    session.execute("DROP KEYSPACE " + ks)
    cluster.shutdown()
    print("python scenario: OK (%d hosts, protocol v%d, compression=%s)" % (len(hosts), cluster.protocol_version, compression))


if __name__ == "__main__":
    main()
