#!/usr/bin/python3
"""Memory and CPU attacks against a running photolibd, with the server's figures.

Run by Scripts/stress (which builds a release server, makes the library and the hostile
file). Written on the independent protocol client of Tests/interop (no Swift code shared):

    /usr/bin/python3 Scripts/stress.py --server HOST:PORT --token TOKEN --pid PID \
        --hostile FILE.jpg [--stats "photolibd stats …"]

Each attack prints the server's resident memory before and after (VmRSS), its peak so far
(VmHWM) and the CPU seconds it used, so growth per unit of load can be read off.
"""

import argparse
import os
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "Tests", "interop"))
import photolib_client as pc  # noqa: E402


class Server:
    def __init__(self, pid):
        self.pid = pid

    def status(self, key):
        with open("/proc/%d/status" % self.pid) as f:
            for line in f:
                if line.startswith(key + ":"):
                    return int(line.split()[1]) * 1024
        return 0

    def rss(self):
        return self.status("VmRSS")

    def peak(self):
        return self.status("VmHWM")

    def cpu(self):
        with open("/proc/%d/stat" % self.pid) as f:
            fields = f.read().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def mib(n):
    return "%.1f MiB" % (n / 1048576.0)


def measure(server, name, attack, stats=None):
    time.sleep(0.5)
    rss0, cpu0, t0 = server.rss(), server.cpu(), time.monotonic()
    detail = attack()
    time.sleep(0.5)
    rss1, cpu1, t1 = server.rss(), server.cpu(), time.monotonic()
    print("%-34s RSS %s -> %s (%+.1f MiB), peak %s, CPU %.2f s in %.1f s; %s"
          % (name, mib(rss0), mib(rss1), (rss1 - rss0) / 1048576.0, mib(server.peak()),
             cpu1 - cpu0, t1 - t0, detail))
    if stats:
        out = subprocess.run(stats, shell=True, capture_output=True, text=True)
        for line in out.stdout.splitlines():
            print("    " + line)
    sys.stdout.flush()


def connect(args, label):
    host, port = args.server.rsplit(":", 1)
    conn = pc.Connection(host, int(port), timeout=60, label=label,
                         max_frame=1 << 20, stream_window=1 << 20, connection_window=8 << 20)
    conn.handshake(args.token)
    return conn


def idle_uploads(args, count=8, announced=100_000_000, sent=32 << 20):
    """`count` uploads each announcing 100 MB, sending 32 MiB, and never finishing."""
    def attack():
        held = []
        data = b"\xff\xd8\xff\xe0" + b"\x00" * ((64 << 10) - 4)
        for i in range(count):
            conn = connect(args, "upload%d" % i)
            call = conn.open_call("UploadAsset")
            header = pc.pb.changes.UploadChunk(header=pc.pb.changes.UploadHeader(
                original_filename="idle%d.jpg" % i, size=announced, uniform_type_identifier="public.jpeg"))
            conn.send_message(call, header)
            chunk = pc.pb.changes.UploadChunk(data=data).SerializeToString()
            for _ in range(sent // len(data)):
                conn.send_message(call, chunk)
            # Let the server read what it has credited so far.
            try:
                while conn.pump(0.2) is not None:
                    pass
            except Exception:  # socket.timeout: nothing more for now
                pass
            held.append((conn, call))
        time.sleep(1)
        ended = [call.status for _, call in held if call.status is not None]
        measure.held = [conn for conn, _ in held]
        return "%d uploads of %s sent, unfinished (%d ended early%s)" % (
            count, mib(sent), len(ended), (": " + pc.fmt_status(ended[0])) if ended else "")
    return attack


def snapshots(args, count=256, connections=2):
    """`connections` × `count` distinct fetches of (nearly) the whole library, each read past
    its first page so its whole list is in memory."""
    def attack():
        released = 0
        held = []
        for c in range(connections):
            conn = connect(args, "snapshots%d" % c)
            for i in range(count):
                options = pc.pb.library.FetchOptions(fetch_limit=40_000 + c * count + i)
                msgs, status = conn.unary("FetchAssets", pc.pb.library.FetchAssetsRequest(options=options),
                                          pc.pb.library.FetchResultSnapshot)
                snap = msgs[0]
                page, st = conn.unary("FetchResultObjects", pc.pb.library.FetchResultObjectsRequest(
                    fetch_result_id=snap.fetch_result_id, offset=max(0, snap.count - 10), length=10,
                    identifiers_only=True), pc.pb.library.FetchResultObjectsResponse)
            # The first snapshots of this connection: released by the budget?
            held.append(conn)
        measure.held = held
        return "%d snapshots of ~40,000 assets on %d connections" % (count * connections, connections)
    return attack


def live_registrations(args, count=64, connections=2):
    """Each connection subscribes and registers `count` distinct live fetches."""
    def attack():
        held, refused, accepted, why = [], 0, 0, ""
        for c in range(connections):
            conn = connect(args, "live%d" % c)
            call = conn.open_call("Subscribe")
            for i in range(count):
                options = pc.pb.library.FetchOptions(fetch_limit=30_000 + c * count + i)
                conn.send_message(call, pc.pb.observation.SubscriptionRequest(
                    register_fetch=pc.pb.library.FetchAssetsRequest(options=options)))
            answered = 0
            while answered < count and call.status is None:
                payload = conn.next_message(call, timeout=60)
                if payload is None:
                    break
                answered += 1
            accepted += answered
            if call.status is not None:
                refused += 1
                why = call.status.message
            held.append(conn)
        measure.held = held
        return "%d registrations asked on %d connections, %d accepted; %d subscriptions ended by a limit: %s" % (
            count * connections, connections, accepted, refused, why)
    return attack


def hostile_upload(args):
    """Uploads a valid progressive JPEG built to make the decoder work (many scans over many pixels)."""
    def attack():
        data = open(args.hostile, "rb").read()
        conn = connect(args, "hostile")
        call = conn.open_call("UploadAsset")
        conn.send_message(call, pc.pb.changes.UploadChunk(header=pc.pb.changes.UploadHeader(
            original_filename="hostile.jpg", size=len(data), uniform_type_identifier="public.jpeg")))
        for offset in range(0, len(data), 64 << 10):
            conn.send_message(call, pc.pb.changes.UploadChunk(data=data[offset:offset + (64 << 10)]),
                              end_stream=offset + (64 << 10) >= len(data))
        started = time.monotonic()
        conn.collect(call, pc.pb.changes.UploadResult)
        took = time.monotonic() - started
        conn.close()
        return "%d-byte file answered in %.2f s: %s" % (len(data), took, pc.fmt_status(call.status))
    return attack


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--server", required=True)
    parser.add_argument("--token", required=True)
    parser.add_argument("--pid", type=int, required=True)
    parser.add_argument("--hostile", required=True)
    parser.add_argument("--stats")
    args = parser.parse_args()
    pc.load_protos(os.path.join(ROOT, "Protos"))
    server = Server(args.pid)
    print("server at start: RSS %s" % mib(server.rss()))
    for name, attack in [("8 idle uploads", idle_uploads(args)),
                         ("512 snapshots", snapshots(args)),
                         ("128 live registrations", live_registrations(args)),
                         ("hostile progressive JPEG", hostile_upload(args))]:
        measure.held = []
        measure(server, name, attack, args.stats)
        for conn in measure.held:
            conn.close()
    print("server at end: RSS %s, peak %s, CPU %.1f s" % (mib(server.rss()), mib(server.peak()), server.cpu()))


if __name__ == "__main__":
    main()
