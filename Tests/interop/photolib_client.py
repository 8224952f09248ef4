#!/usr/bin/python3
"""Independent PhotoLib interoperability client.

Written only from docs/PROTOCOL.md and Protos/*.proto, on Google's protobuf runtime
(python3-protobuf) -- no code is shared with the Swift implementation.

    /usr/bin/python3 Tests/interop/photolib_client.py --server HOST:PORT --token TOKEN \
        [--fingerprint SHA256:...] [--expect-assets N] [--image-size WxH] [--trace]

With --fingerprint every connection is TLS 1.3 (ALPN photolib/1) and the server's
certificate must have that SHA-256 fingerprint (docs/PROTOCOL.md, section 2a).

The Python modules for Protos/*.proto are generated at run time with `protoc` into a
temporary directory (nothing generated is committed).

Exit status: 0 when every check passes, 1 when a check fails, 2 on a usage or setup error.
"""

import argparse
import base64
import binascii
import hashlib
import os
import re
import shutil
import socket
import ssl
import struct
import subprocess
import sys
import tempfile
import time
import traceback

# --------------------------------------------------------------------------------------
# Protocol constants (docs/PROTOCOL.md, sections 3 and 12)
# --------------------------------------------------------------------------------------

# TLS (docs/PROTOCOL.md, section 2a): set by --fingerprint, the 32-byte SHA-256 of the
# server certificate's DER encoding; None: plain TCP.
TLS_PIN = None
TLS_ALPN = "photolib/1"

HEADER = struct.Struct(">IBBI")  # length u32, type u8, flags u8, stream_id u32 -- big-endian
HEADER_SIZE = HEADER.size        # 10

HELLO, WELCOME, CALL, MESSAGE, STATUS, CANCEL, WINDOW_UPDATE, PING, GOAWAY = range(1, 10)
FRAME_NAMES = {1: "HELLO", 2: "WELCOME", 3: "CALL", 4: "MESSAGE", 5: "STATUS", 6: "CANCEL",
               7: "WINDOW_UPDATE", 8: "PING", 9: "GOAWAY"}
END_STREAM = 0x01
ACK = 0x02

PROTOCOL_VERSION = 1
DEFAULT_MAX_FRAME = 1 << 20            # 1 MiB
DEFAULT_STREAM_WINDOW = 1 << 20        # 1 MiB
DEFAULT_CONNECTION_WINDOW = 8 << 20    # 8 MiB
MIN_FRAME, MAX_FRAME = 16 << 10, 16 << 20
HELLO_LIMIT = 64 << 10
MAX_WINDOW = (1 << 31) - 1
MAX_CHUNK = 64 << 10
SERVICE = "/photolib.v1.PhotoLibrary/"

# This client's announcements: small windows, to exercise flow control.
CLIENT_MAX_FRAME = 128 << 10
CLIENT_STREAM_WINDOW = 128 << 10
CLIENT_CONNECTION_WINDOW = 192 << 10

pb = None  # namespace of generated modules, filled by load_protos()


class pbns:
    pass


def load_protos(proto_dir):
    """Generates the _pb2 modules into a temp dir and imports them."""
    global pb
    try:
        import google.protobuf  # noqa: F401
    except ImportError:
        raise SystemExit("this Python (%s) has no protobuf runtime: run the client with Debian's "
                         "/usr/bin/python3 (package python3-protobuf)" % sys.executable)
    if shutil.which("protoc") is None:
        raise SystemExit("protoc not found on PATH (Debian package protobuf-compiler)")
    protos = sorted(f for f in os.listdir(proto_dir) if f.endswith(".proto"))
    if not protos:
        raise SystemExit("no .proto files in %s" % proto_dir)
    tmp = tempfile.mkdtemp(prefix="photolib-interop-")
    try:
        cmd = ["protoc", "--proto_path=" + proto_dir, "--python_out=" + tmp] + \
              [os.path.join(proto_dir, f) for f in protos]
        r = subprocess.run(cmd, capture_output=True, text=True)
        if r.returncode != 0:
            raise SystemExit("protoc failed:\n" + r.stderr)
        sys.path.insert(0, tmp)
        import importlib
        ns = pbns()
        for f in protos:
            name = f[:-len(".proto")]
            setattr(ns, name, importlib.import_module(name + "_pb2"))
    finally:
        # Modules are imported (in memory); the generated files are not needed any more.
        shutil.rmtree(tmp, ignore_errors=True)
    t = ns.transport
    ns.Hello, ns.Welcome, ns.CallStart, ns.Status = t.Hello, t.Welcome, t.CallStart, t.Status
    ns.Cancel, ns.WindowUpdate, ns.Ping, ns.GoAway, ns.Empty = \
        t.Cancel, t.WindowUpdate, t.Ping, t.GoAway, t.Empty
    pb = ns
    return ns


def code_name(code):
    try:
        return pb.transport.StatusCode.Name(code)
    except ValueError:
        return "STATUS_CODE_%d(unknown)" % code


def reason_name(reason):
    try:
        return pb.transport.ErrorReason.Name(reason)
    except ValueError:
        return "ERROR_REASON_%d(unknown)" % reason


def fmt_status(st):
    s = code_name(st.code)
    if st.reason:
        s += "/" + reason_name(st.reason)
    if st.message:
        s += " %r" % st.message
    return s


def hexdump(data, limit=64):
    h = data[:limit].hex(" ")
    return h + (" ... (%d bytes)" % len(data) if len(data) > limit else "")


# --------------------------------------------------------------------------------------
# Errors
# --------------------------------------------------------------------------------------

class ProtocolError(Exception):
    """The server broke a rule of docs/PROTOCOL.md."""


class ConnectionGone(Exception):
    """The server sent GOAWAY or closed the connection."""

    def __init__(self, msg, goaway=None):
        super().__init__(msg)
        self.goaway = goaway


class CheckFailed(Exception):
    pass


# --------------------------------------------------------------------------------------
# Frames and the connection
# --------------------------------------------------------------------------------------

class Frame:
    __slots__ = ("type", "flags", "stream", "payload")

    def __init__(self, ftype, flags, stream, payload):
        self.type, self.flags, self.stream, self.payload = ftype, flags, stream, payload

    def __repr__(self):
        return "%s(flags=0x%02x, stream=%d, %d bytes)" % (
            FRAME_NAMES.get(self.type, "TYPE_%d" % self.type), self.flags, self.stream,
            len(self.payload))


class Call:
    """Client-side state of one call (stream)."""

    def __init__(self, stream, method):
        self.stream = stream
        self.method = method
        self.inbox = []          # received MESSAGE payloads not consumed yet
        self.status = None       # Status once STATUS arrived
        self.recv_window = None  # server -> client stream window
        self.send_window = None  # client -> server stream window
        self.half_closed = False


class Connection:
    def __init__(self, host, port, timeout=30.0, trace=False, label="conn",
                 max_frame=CLIENT_MAX_FRAME, stream_window=CLIENT_STREAM_WINDOW,
                 connection_window=CLIENT_CONNECTION_WINDOW):
        self.label = label
        self.trace = trace
        self.timeout = min(timeout, 30.0)
        self.sock = socket.create_connection((host, port), timeout=self.timeout)
        self.sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        self.sock.settimeout(self.timeout)
        if TLS_PIN is not None:
            self.sock = tls_wrap(self.sock, host)
        self.log = []            # the last frames, for failure reports
        self.closed = False
        self.goaway = None
        # Our announcements (what we accept / receive).
        self.max_frame = max_frame
        self.initial_stream_window = stream_window
        self.recv_conn_window = connection_window
        self._initial_conn = connection_window
        # Peer's announcements, after WELCOME.
        self.welcome = None
        self.peer_max_frame = HELLO_LIMIT
        self.peer_stream_window = DEFAULT_STREAM_WINDOW
        self.send_conn_window = 0
        self.next_stream = 1
        self.calls = {}          # open calls
        self.cancelled = {}      # stream -> MESSAGE bytes received after CANCEL
        self.ended = set()       # streams whose STATUS arrived
        self.finished = {}       # stream -> Call, once its STATUS arrived
        self.cancelled_status = {}  # STATUS that crossed our CANCEL on the wire
        self.pings = {}          # opaque -> time sent
        self.pong = {}           # opaque -> round trip
        self.stats = {"window_updates_sent": 0, "window_update_bytes": 0,
                      "message_bytes_received": 0, "server_pings_answered": 0,
                      "max_unconsumed_conn": 0}

    # -- raw I/O -----------------------------------------------------------------------

    def _note(self, direction, frame):
        head = HEADER.pack(len(frame.payload), frame.type, frame.flags, frame.stream)
        line = "%s %s %r  %s | %s" % (self.label, direction, frame, head.hex(" "), hexdump(frame.payload, 48))
        self.log.append(line)
        del self.log[:-40]
        if self.trace:
            print("  [trace] " + line, file=sys.stderr)

    def send_frame(self, ftype, flags, stream, payload=b""):
        if isinstance(payload, (bytes, bytearray)):
            data = bytes(payload)
        else:
            data = payload.SerializeToString()
        frame = Frame(ftype, flags, stream, data)
        self._note(">>", frame)
        self.sock.sendall(HEADER.pack(len(data), ftype, flags, stream) + data)

    def send_raw(self, data):
        self.log.append("%s >> raw %s" % (self.label, hexdump(data)))
        self.sock.sendall(data)

    def _recv_exact(self, n, deadline):
        buf = bytearray()
        while len(buf) < n:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise socket.timeout("timed out")
            self.sock.settimeout(min(remaining, self.timeout))
            chunk = self.sock.recv(min(n - len(buf), 1 << 20))
            if not chunk:
                if buf:
                    raise ConnectionGone("%s: connection closed in the middle of a frame" % self.label)
                return None
            buf += chunk
        return bytes(buf)

    def read_frame(self, timeout=None):
        """Reads one frame; None on a clean EOF. Raises socket.timeout."""
        deadline = time.monotonic() + (timeout if timeout is not None else self.timeout)
        header = self._recv_exact(HEADER_SIZE, deadline)
        if header is None:
            self.closed = True
            self.log.append("%s << EOF" % self.label)
            return None
        length, ftype, flags, stream = HEADER.unpack(header)
        if length > self.max_frame:
            self.log.append("%s << header %s" % (self.label, header.hex(" ")))
            self._violation(pb.transport.STATUS_CODE_RESOURCE_EXHAUSTED,
                            "frame of %d bytes exceeds our max_frame_size %d" % (length, self.max_frame))
        payload = self._recv_exact(length, deadline) if length else b""
        if payload is None:
            raise ConnectionGone("%s: connection closed in the middle of a frame" % self.label)
        frame = Frame(ftype, flags, stream & 0x7FFFFFFF, payload)
        self._note("<<", frame)
        if stream & 0x80000000:
            raise ProtocolError("server set the reserved stream-id bit: header %s" % header.hex(" "))
        return frame

    def _violation(self, code, message):
        try:
            self.send_frame(GOAWAY, 0, 0, pb.GoAway(
                last_stream_id=0, status=pb.Status(
                    code=code, message=message,
                    reason=pb.transport.ERROR_REASON_PROTOCOL_VIOLATION)))
        except OSError:
            pass
        self.close()
        raise ProtocolError(message)

    def close(self):
        if not self.closed:
            self.closed = True
        try:
            self.sock.close()
        except OSError:
            pass

    # -- handshake ---------------------------------------------------------------------

    def hello(self, token, version=PROTOCOL_VERSION, client_name="photolib-interop/1.0"):
        self.send_frame(HELLO, 0, 0, pb.Hello(
            protocol_version=version, token=token, client_name=client_name,
            max_frame_size=self.max_frame, initial_stream_window=self.initial_stream_window,
            initial_connection_window=self.recv_conn_window))

    def handshake(self, token, **kw):
        self.hello(token, **kw)
        frame = self.read_frame()
        if frame is None:
            raise ConnectionGone("%s: server closed the connection instead of WELCOME" % self.label)
        if frame.type == GOAWAY:
            ga = pb.GoAway.FromString(frame.payload)
            self.goaway = ga
            raise ConnectionGone("%s: GOAWAY during handshake: %s" % (self.label, fmt_status(ga.status)), ga)
        if frame.type != WELCOME or frame.stream != 0:
            raise ProtocolError("expected WELCOME on stream 0, got %r" % frame)
        w = pb.Welcome.FromString(frame.payload)
        self.welcome = w
        self.peer_max_frame = w.max_frame_size or DEFAULT_MAX_FRAME
        self.peer_stream_window = w.initial_stream_window or DEFAULT_STREAM_WINDOW
        self.send_conn_window = w.initial_connection_window or DEFAULT_CONNECTION_WINDOW
        return w

    # -- frame dispatch ----------------------------------------------------------------

    def pump(self, timeout=None):
        """Reads and dispatches one frame. Returns the frame (None on EOF)."""
        frame = self.read_frame(timeout)
        if frame is None:
            if self.calls:
                raise ConnectionGone("%s: server closed the connection with calls open (%s)"
                                     % (self.label, sorted(self.calls)), self.goaway)
            return None
        t = frame.type
        if t == MESSAGE:
            self._on_message(frame)
        elif t == STATUS:
            self._on_status(frame)
        elif t == WINDOW_UPDATE:
            self._on_window_update(frame)
        elif t == PING:
            if frame.stream != 0:
                raise ProtocolError("PING on stream %d" % frame.stream)
            ping = pb.Ping.FromString(frame.payload)
            if frame.flags & ACK:
                if ping.opaque in self.pings:
                    self.pong[ping.opaque] = time.monotonic() - self.pings.pop(ping.opaque)
                else:
                    raise ProtocolError("PING ACK with an opaque we never sent: %#x" % ping.opaque)
            else:
                self.send_frame(PING, ACK, 0, pb.Ping(opaque=ping.opaque))
                self.stats["server_pings_answered"] += 1
        elif t == GOAWAY:
            self.goaway = pb.GoAway.FromString(frame.payload)
        elif t in (HELLO, WELCOME, CALL, CANCEL):
            raise ProtocolError("server sent a %s frame" % FRAME_NAMES[t])
        else:
            self._violation(pb.transport.STATUS_CODE_INVALID_ARGUMENT, "unknown frame type %d" % t)
        return frame

    def _on_message(self, frame):
        n = len(frame.payload)
        s = frame.stream
        if s == 0:
            raise ProtocolError("MESSAGE on stream 0")
        # Flow control: the server may only send within both windows.
        if n > self.recv_conn_window:
            self._violation(pb.transport.STATUS_CODE_RESOURCE_EXHAUSTED,
                            "MESSAGE of %d bytes exceeds the connection window %d" % (n, self.recv_conn_window))
        call = self.calls.get(s)
        if call is not None and n > call.recv_window:
            self._violation(pb.transport.STATUS_CODE_RESOURCE_EXHAUSTED,
                            "MESSAGE of %d bytes on stream %d exceeds its window %d" % (n, s, call.recv_window))
        self.recv_conn_window -= n
        self.stats["message_bytes_received"] += n
        unconsumed = self._initial_conn - self.recv_conn_window
        self.stats["max_unconsumed_conn"] = max(self.stats["max_unconsumed_conn"], unconsumed)
        if call is not None:
            call.recv_window -= n
            call.inbox.append(frame.payload)
        elif s in self.cancelled:
            # In flight when we cancelled: discard, but return the connection credit.
            self.cancelled[s] += n
            self._grant(0, n)
        elif s in self.ended:
            raise ProtocolError("MESSAGE on stream %d after its STATUS" % s)
        else:
            raise ProtocolError("MESSAGE on stream %d, which we never opened" % s)

    def _on_status(self, frame):
        s = frame.stream
        st = pb.Status.FromString(frame.payload)
        call = self.calls.pop(s, None)
        if call is not None:
            call.status = st
            self.ended.add(s)
            self.finished[s] = call
        elif s in self.cancelled:
            self.cancelled_status[s] = st   # crossed our CANCEL on the wire: ignore
        else:
            raise ProtocolError("STATUS on stream %d, which is not open" % s)

    def _on_window_update(self, frame):
        inc = pb.WindowUpdate.FromString(frame.payload).increment
        if inc == 0:
            raise ProtocolError("WINDOW_UPDATE with increment 0 on stream %d" % frame.stream)
        if frame.stream == 0:
            self.send_conn_window += inc
            if self.send_conn_window > MAX_WINDOW:
                self._violation(pb.transport.STATUS_CODE_INVALID_ARGUMENT, "connection window above 2^31-1")
        else:
            call = self.calls.get(frame.stream)
            if call is not None:
                call.send_window += inc
                if call.send_window > MAX_WINDOW:
                    self._violation(pb.transport.STATUS_CODE_INVALID_ARGUMENT,
                                    "stream %d window above 2^31-1" % frame.stream)
            # else: the stream ended; ignore (section 9.4)

    def _grant(self, stream, n):
        if n <= 0:
            return
        self.send_frame(WINDOW_UPDATE, 0, stream, pb.WindowUpdate(increment=n))
        self.stats["window_updates_sent"] += 1
        if stream == 0:
            self.recv_conn_window += n
            self.stats["window_update_bytes"] += n

    # -- calls -------------------------------------------------------------------------

    def open_call(self, method, timeout_ms=0, end_stream=False, stream=None):
        if self.goaway is not None:
            raise ConnectionGone("%s: server sent GOAWAY; no new calls" % self.label, self.goaway)
        s = self.next_stream if stream is None else stream
        self.next_stream = s + 1
        call = Call(s, method)
        call.recv_window = self.initial_stream_window
        call.send_window = self.peer_stream_window
        call.half_closed = end_stream
        self.calls[s] = call
        self.send_frame(CALL, END_STREAM if end_stream else 0, s,
                        pb.CallStart(method=method if method.startswith("/") else SERVICE + method,
                                     timeout_ms=timeout_ms))
        return call

    def send_message(self, call, msg, end_stream=False):
        data = msg if isinstance(msg, (bytes, bytearray)) else msg.SerializeToString()
        if len(data) > self.peer_max_frame:
            raise CheckFailed("request of %d bytes exceeds the server's max_frame_size %d"
                              % (len(data), self.peer_max_frame))
        deadline = time.monotonic() + self.timeout
        while len(data) > call.send_window or len(data) > self.send_conn_window:
            if call.status is not None:
                return
            if time.monotonic() > deadline:
                raise CheckFailed("no flow-control credit from the server for %d bytes" % len(data))
            self.pump(deadline - time.monotonic())
        call.send_window -= len(data)
        self.send_conn_window -= len(data)
        self.send_frame(MESSAGE, END_STREAM if end_stream else 0, call.stream, data)
        call.half_closed = end_stream

    def cancel(self, call, reason="cancelled by interop client"):
        self.calls.pop(call.stream, None)
        self.cancelled[call.stream] = 0
        # Bytes we received but never consumed: the connection credit goes back.
        pending = sum(len(p) for p in call.inbox)
        call.inbox.clear()
        self.send_frame(CANCEL, 0, call.stream, pb.Cancel(reason=reason))
        self._grant(0, pending)

    def next_message(self, call, timeout=None):
        """Returns the next response payload of the call, or None once its STATUS arrived.

        Consuming a payload returns its flow-control credit (WINDOW_UPDATE stream + 0)."""
        deadline = time.monotonic() + (timeout if timeout is not None else self.timeout)
        while True:
            if call.inbox:
                payload = call.inbox.pop(0)
                n = len(payload)
                if n and call.status is None and call.stream in self.calls:
                    call.recv_window += n
                    self._grant(call.stream, n)
                self._grant(0, n)
                return payload
            if call.status is not None:
                return None
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise CheckFailed("timed out waiting for stream %d (%s)" % (call.stream, call.method))
            try:
                f = self.pump(remaining)
            except socket.timeout:
                raise CheckFailed("timed out (%.0f s) waiting for stream %d (%s)"
                                  % (self.timeout, call.stream, call.method))
            if f is None:
                raise ConnectionGone("%s: connection closed while waiting for stream %d"
                                     % (self.label, call.stream), self.goaway)
            if f.type == GOAWAY and call.stream > self.goaway.last_stream_id:
                raise ConnectionGone("%s: GOAWAY %s while waiting for stream %d"
                                     % (self.label, fmt_status(self.goaway.status), call.stream),
                                     self.goaway)

    def collect(self, call, response_type, timeout=None):
        """Reads every response message and the STATUS: returns (messages, status)."""
        out = []
        while True:
            payload = self.next_message(call, timeout)
            if payload is None:
                return out, call.status
            try:
                out.append(response_type.FromString(payload))
            except Exception as e:  # DecodeError
                raise ProtocolError("stream %d: response does not decode as %s: %s; payload %s"
                                    % (call.stream, response_type.DESCRIPTOR.full_name, e,
                                       hexdump(payload)))

    def unary(self, method, request, response_type, timeout_ms=0):
        call = self.open_call(method, timeout_ms=timeout_ms)
        self.send_message(call, request, end_stream=True)
        msgs, status = self.collect(call, response_type)
        return msgs, status

    def ping(self, opaque, timeout=None):
        self.pings[opaque] = time.monotonic()
        self.send_frame(PING, 0, 0, pb.Ping(opaque=opaque))
        deadline = time.monotonic() + (timeout or self.timeout)
        while opaque not in self.pong:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise CheckFailed("no PING ACK for opaque %#x" % opaque)
            if self.pump(remaining) is None:
                raise ConnectionGone("connection closed while waiting for PING ACK")
        return self.pong[opaque]

    def expect_goaway_and_close(self, timeout=10.0):
        """Reads until GOAWAY then EOF. Returns the GoAway (or None) and whether EOF came."""
        deadline = time.monotonic() + timeout
        ga = None
        while True:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                return ga, False
            try:
                f = self.read_frame(remaining)
            except socket.timeout:
                return ga, False
            except (ConnectionResetError, BrokenPipeError):
                return ga, True
            if f is None:
                return ga, True
            if f.type == GOAWAY and ga is None:
                ga = pb.GoAway.FromString(f.payload)
            elif f.type == PING and not f.flags & ACK:
                self.send_frame(PING, ACK, 0, f.payload)


def parse_fingerprint(text):
    """32 bytes from 'SHA256:<unpadded base64>' or 64 hexadecimal digits (colons allowed)."""
    text = text.strip()
    if text.lower().startswith("sha256:"):
        body = text[7:]
        try:
            raw = base64.b64decode(body + "=" * (-len(body) % 4), validate=True)
        except (binascii.Error, ValueError):
            raw = b""
        if len(raw) == 32:
            return raw
        text = body
    try:
        raw = bytes.fromhex(text.replace(":", ""))
    except ValueError:
        raw = b""
    if len(raw) != 32:
        raise argparse.ArgumentTypeError("expected SHA256:<base64> or 64 hexadecimal digits")
    return raw


def tls_wrap(sock, host):
    """TLS 1.3 with ALPN photolib/1; the server is verified by its pinned fingerprint alone
    (section 2a): Python checks after the handshake, before any application byte is sent."""
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
    context.minimum_version = ssl.TLSVersion.TLSv1_3
    context.check_hostname = False
    context.verify_mode = ssl.CERT_NONE  # the pin below is the verification
    context.set_alpn_protocols([TLS_ALPN])
    is_address = re.fullmatch(r"[0-9.]+|[0-9a-fA-F:]+", host) is not None
    tls = context.wrap_socket(sock, server_hostname=None if is_address else host)
    presented = hashlib.sha256(tls.getpeercert(binary_form=True)).digest()
    if presented != TLS_PIN:
        tls.close()
        raise ssl.SSLError("the server's certificate has fingerprint SHA256:%s, not the pinned SHA256:%s" % (
            base64.b64encode(presented).decode().rstrip("="), base64.b64encode(TLS_PIN).decode().rstrip("=")))
    if tls.selected_alpn_protocol() not in (None, TLS_ALPN):
        tls.close()
        raise ssl.SSLError("the server chose ALPN %r" % tls.selected_alpn_protocol())
    return tls


def connect(args, label, **kw):
    return Connection(args.host, args.port, timeout=args.timeout, trace=args.trace, label=label, **kw)


# --------------------------------------------------------------------------------------
# JPEG helpers
# --------------------------------------------------------------------------------------

def jpeg_size(data):
    """(width, height) from the first SOFn marker, or None."""
    if data[:2] != b"\xff\xd8":
        return None
    i = 2
    while i + 4 <= len(data):
        if data[i] != 0xFF:
            return None
        marker = data[i + 1]
        if marker == 0xFF:
            i += 1
            continue
        if marker in (0xD8, 0x01) or 0xD0 <= marker <= 0xD7:
            i += 2
            continue
        seglen = struct.unpack(">H", data[i + 2:i + 4])[0]
        if marker in (0xC0, 0xC1, 0xC2, 0xC3, 0xC5, 0xC6, 0xC7, 0xC9, 0xCA, 0xCB, 0xCD, 0xCE, 0xCF):
            h, w = struct.unpack(">HH", data[i + 5:i + 9])
            return w, h
        if marker == 0xDA:
            return None
        i += 2 + seglen
    return None


def expected_geometry(pw, ph, tw, th, fill):
    """Expected (w, h) per docs/PROTOCOL.md 14.1 (before rounding)."""
    if tw == 0 and th == 0:
        return float(pw), float(ph)
    sx, sy = tw / pw, th / ph
    scale = max(sx, sy) if fill else min(sx, sy)
    scale = min(scale, 1.0)  # never upscaled
    return pw * scale, ph * scale


# --------------------------------------------------------------------------------------
# The checks
# --------------------------------------------------------------------------------------

class Runner:
    def __init__(self, args):
        self.args = args
        self.passed = 0
        self.failed = 0
        self.failures = []
        self.infos = []
        self.conn = None
        self.assets = []
        self.snapshot = None

    def check(self, name, fn):
        t0 = time.monotonic()
        self._last_conn = None
        try:
            detail = fn()
        except (CheckFailed, ProtocolError, ConnectionGone, OSError, AssertionError) as e:
            self.failed += 1
            msg = "%s: %s" % (type(e).__name__, e)
            conn = getattr(self, "_last_conn", None) or self.conn
            frames = "\n".join("        " + l for l in (conn.log[-12:] if conn else []))
            self.failures.append((name, msg))
            print("FAIL  %-44s %s" % (name, msg))
            if frames:
                print("      last frames:\n" + frames)
            if self.args.trace:
                traceback.print_exc()
            return False
        except Exception as e:  # a bug here, or an undecodable message
            self.failed += 1
            self.failures.append((name, repr(e)))
            print("FAIL  %-44s unexpected %r" % (name, e))
            traceback.print_exc()
            return False
        self.passed += 1
        print("ok    %-44s %s  (%.0f ms)" % (name, detail or "", (time.monotonic() - t0) * 1000))
        return True

    def info(self, name, text):
        self.infos.append((name, text))
        print("info  %-44s %s" % (name, text))

    def expect(self, cond, msg):
        if not cond:
            raise CheckFailed(msg)

    def expect_ok(self, status, what):
        if status is None:
            raise CheckFailed("%s: no STATUS" % what)
        if status.code != 0:
            raise CheckFailed("%s: STATUS %s" % (what, fmt_status(status)))

    # -- connection and handshake ------------------------------------------------------

    def t_handshake(self):
        self.conn = connect(self.args, "main")
        w = self.conn.handshake(self.args.token)
        self.expect(w.protocol_version == PROTOCOL_VERSION,
                    "WELCOME.protocol_version = %d, want 1" % w.protocol_version)
        mf = w.max_frame_size
        self.expect(mf == 0 or MIN_FRAME <= mf <= MAX_FRAME, "WELCOME.max_frame_size %d out of range" % mf)
        eff = mf or DEFAULT_MAX_FRAME
        for name in ("initial_stream_window", "initial_connection_window"):
            v = getattr(w, name)
            self.expect(v == 0 or eff <= v <= MAX_WINDOW,
                        "WELCOME.%s = %d, must be 0 or in [max_frame_size %d, 2^31-1]" % (name, v, eff))
        self.expect(w.is_owner, "owner token but WELCOME.is_owner is false")
        return ("server=%r library=%r max_frame=%d windows=%d/%d streams=%d idle=%dms auth=%s/%s"
                % (w.server_name, w.library_identifier, w.max_frame_size, w.initial_stream_window,
                   w.initial_connection_window, w.max_concurrent_streams, w.idle_timeout_ms,
                   pb.transport.AuthorizationStatus.Name(w.authorization_status),
                   pb.transport.AccessLevel.Name(w.access_level)))

    def t_ping(self):
        rtt = self.conn.ping(0x5048_4F54_4F4C_4942)
        return "PING ACK with the same opaque in %.1f ms" % (rtt * 1000)

    def t_library_info(self):
        msgs, st = self.conn.unary("GetLibraryInfo", pb.Empty(), pb.library.LibraryInfo)
        self.expect_ok(st, "GetLibraryInfo")
        self.expect(len(msgs) == 1, "unary call got %d response messages" % len(msgs))
        info = msgs[0]
        if self.conn.welcome.library_identifier:
            self.expect(info.library_identifier == self.conn.welcome.library_identifier,
                        "library_identifier %r != WELCOME's %r"
                        % (info.library_identifier, self.conn.welcome.library_identifier))
        self.library_info = info
        return "assets=%d albums=%d token=%r" % (info.asset_count, info.album_count, info.current_change_token)

    # -- fetching ----------------------------------------------------------------------

    def t_fetch_assets(self):
        prefetch = self.args.prefetch
        req = pb.library.FetchAssetsRequest(prefetch_count=prefetch)
        msgs, st = self.conn.unary("FetchAssets", req, pb.library.FetchResultSnapshot)
        self.expect_ok(st, "FetchAssets")
        self.expect(len(msgs) == 1, "unary call got %d response messages" % len(msgs))
        snap = msgs[0]
        self.snapshot = snap
        self.expect(snap.fetch_result_id, "empty fetch_result_id")
        self.expect(snap.object_type == pb.library.OBJECT_TYPE_ASSET,
                    "object_type %d, want OBJECT_TYPE_ASSET" % snap.object_type)
        self.expect(len(snap.assets) == min(prefetch, snap.count),
                    "prefetched %d assets of %d with prefetch_count %d" % (len(snap.assets), snap.count, prefetch))
        assets = list(snap.assets)
        # Page the rest (FetchResultObjects, at most 1000 -- we ask for `prefetch` at a time).
        while len(assets) < snap.count:
            r = pb.library.FetchResultObjectsRequest(fetch_result_id=snap.fetch_result_id,
                                                     offset=len(assets), length=prefetch)
            pm, pst = self.conn.unary("FetchResultObjects", r, pb.library.FetchResultObjectsResponse)
            self.expect_ok(pst, "FetchResultObjects(offset %d)" % len(assets))
            self.expect(len(pm) == 1 and pm[0].offset == len(assets) and pm[0].assets,
                        "FetchResultObjects page at %d is empty or misplaced" % len(assets))
            assets.extend(pm[0].assets)
        self.assets = assets
        ids = [a.local_identifier for a in assets]
        self.expect(len(set(ids)) == len(ids), "duplicate identifiers in the fetch result")
        bad = [i for i in ids if not re.fullmatch(r"[0-9A-Fa-f-]{36}/L0/001", i)]
        self.expect(not bad, "identifiers not shaped UUID/L0/001: %r" % bad[:3])
        dates = [a.creation_date_ms for a in assets]
        self.expect(dates == sorted(dates), "default sort is not creation date ascending")
        if self.args.expect_assets is not None:
            self.expect(snap.count == self.args.expect_assets,
                        "count %d, expected %d" % (snap.count, self.args.expect_assets))
        print("      FetchAssets: count=%d snapshot=%s" % (snap.count, snap.fetch_result_id))
        for a in assets:
            print("        %s  %dx%d  %s" % (a.local_identifier, a.pixel_width, a.pixel_height,
                                           time.strftime("%Y-%m-%d %H:%M:%S",
                                                         time.gmtime(a.creation_date_ms / 1000))))
        return "count=%d" % snap.count

    def t_fetch_result_paging(self):
        self.expect(self.snapshot is not None and self.assets, "needs assets")
        snap = self.snapshot
        r = pb.library.FetchResultObjectsRequest(fetch_result_id=snap.fetch_result_id,
                                                 offset=0, length=1000, identifiers_only=True)
        msgs, st = self.conn.unary("FetchResultObjects", r, pb.library.FetchResultObjectsResponse)
        self.expect_ok(st, "FetchResultObjects(identifiers_only)")
        got = list(msgs[0].local_identifiers)
        want = [a.local_identifier for a in self.assets][:1000]
        self.expect(got == want, "identifiers_only page %r != prefetched %r" % (got[:3], want[:3]))
        last = self.assets[-1]
        msgs, st = self.conn.unary("FetchResultIndex", pb.library.FetchResultIndexRequest(
            fetch_result_id=snap.fetch_result_id, local_identifier=last.local_identifier),
            pb.library.FetchResultIndexResponse)
        self.expect_ok(st, "FetchResultIndex")
        self.expect(msgs[0].found and msgs[0].index == len(self.assets) - 1,
                    "index(of: last) = found %s index %d, want %d"
                    % (msgs[0].found, msgs[0].index, len(self.assets) - 1))
        msgs, st = self.conn.unary("FetchResultIndex", pb.library.FetchResultIndexRequest(
            fetch_result_id=snap.fetch_result_id,
            local_identifier="00000000-0000-0000-0000-000000000000/L0/001"),
            pb.library.FetchResultIndexResponse)
        self.expect_ok(st, "FetchResultIndex(absent)")
        self.expect(not msgs[0].found, "contains(absent asset) is true")
        return "identifiers_only, index(of:), contains"

    def t_fetch_collections(self):
        req = pb.library.FetchAssetCollectionsRequest(prefetch_count=self.args.prefetch)
        msgs, st = self.conn.unary("FetchAssetCollections", req, pb.library.FetchResultSnapshot)
        self.expect_ok(st, "FetchAssetCollections")
        snap = msgs[0]
        self.expect(snap.object_type == pb.library.OBJECT_TYPE_ASSET_COLLECTION,
                    "object_type %d, want OBJECT_TYPE_ASSET_COLLECTION" % snap.object_type)
        cols = list(snap.asset_collections)
        self.expect(len(cols) == min(snap.count, self.args.prefetch),
                    "prefetched %d of %d" % (len(cols), snap.count))
        print("      FetchAssetCollections: count=%d" % snap.count)
        subtype = pb.library.AssetCollectionSubtype
        for c in cols:
            print("        %-40s %-22r %-40s n=%d" % (c.local_identifier, c.title,
                                                      subtype.Name(c.subtype) if c.subtype in subtype.values() else c.subtype,
                                                      c.estimated_asset_count))
        for c in cols:
            if c.type == pb.library.ASSET_COLLECTION_TYPE_SMART_ALBUM:
                self.expect(re.fullmatch(r"smart-[^/]+/L0/040", c.local_identifier),
                            "smart album identifier %r not shaped smart-<subtype>/L0/040" % c.local_identifier)
            else:
                self.expect(re.fullmatch(r"[0-9A-Fa-f-]{36}/L0/040", c.local_identifier),
                            "album identifier %r not shaped UUID/L0/040" % c.local_identifier)
        lib = [c for c in cols if c.subtype == pb.library.ASSET_COLLECTION_SUBTYPE_SMART_ALBUM_USER_LIBRARY]
        if lib and self.snapshot is not None:
            self.expect(lib[0].estimated_asset_count == self.snapshot.count,
                        "user library smart album count %d != FetchAssets count %d"
                        % (lib[0].estimated_asset_count, self.snapshot.count))
        self.collections = snap
        return "count=%d" % snap.count

    def t_release_then_expired(self):
        req = pb.library.FetchAssetsRequest(prefetch_count=0)
        msgs, st = self.conn.unary("FetchAssets", req, pb.library.FetchResultSnapshot)
        self.expect_ok(st, "FetchAssets")
        fid = msgs[0].fetch_result_id
        msgs, st = self.conn.unary("ReleaseFetchResult", pb.library.ReleaseFetchResultRequest(
            fetch_result_id=fid), pb.Empty)
        self.expect_ok(st, "ReleaseFetchResult")
        msgs, st = self.conn.unary("FetchResultObjects", pb.library.FetchResultObjectsRequest(
            fetch_result_id=fid, offset=0, length=1), pb.library.FetchResultObjectsResponse)
        self.expect(st.code == pb.transport.STATUS_CODE_FAILED_PRECONDITION
                    and st.reason == pb.transport.ERROR_REASON_FETCH_RESULT_EXPIRED,
                    "released snapshot: STATUS %s, want FAILED_PRECONDITION/FETCH_RESULT_EXPIRED"
                    % fmt_status(st))
        return fmt_status(st)

    # -- images ------------------------------------------------------------------------

    def request_image(self, asset, tw, th, fill=False, delivery=None, resize=None,
                      request_id=0, timeout_ms=0, conn=None, bypass_cache=False, whole=False):
        conn = conn or self.conn
        img = pb.images
        req = img.ImageRequest(
            asset_identifier=asset.local_identifier, target_width=tw, target_height=th,
            content_mode=img.CONTENT_MODE_ASPECT_FILL if fill else img.CONTENT_MODE_ASPECT_FIT,
            delivery_mode=img.DELIVERY_MODE_HIGH_QUALITY_FORMAT if delivery is None else delivery,
            resize_mode=img.RESIZE_MODE_EXACT if resize is None else resize,
            request_id=request_id, bypass_cache=bypass_cache, accepts_whole_images=whole)
        call = conn.open_call("RequestImage", timeout_ms=timeout_ms)
        conn.send_message(call, req, end_stream=True)
        images = []      # dicts: start, data, end
        current = None
        while True:
            payload = conn.next_message(call)
            if payload is None:
                break
            part = img.ImageResponse.FromString(payload)
            which = part.WhichOneof("part")
            if which == "start":
                self.expect(current is None, "ImageStart before the previous ImageEnd")
                current = {"start": part.start, "data": bytearray(), "end": None, "chunks": 0}
                self.expect(part.start.image_index == len(images),
                            "ImageStart.image_index %d, want %d" % (part.start.image_index, len(images)))
            elif which == "chunk":
                self.expect(current is not None, "ImageChunk outside ImageStart/ImageEnd")
                c = part.chunk
                self.expect(len(c.data) <= MAX_CHUNK, "ImageChunk of %d bytes > 64 KiB" % len(c.data))
                self.expect(c.offset == len(current["data"]),
                            "ImageChunk.offset %d, want %d (contiguous, ascending)" % (c.offset, len(current["data"])))
                current["data"] += c.data
                current["chunks"] += 1
            elif which == "end":
                self.expect(current is not None, "ImageEnd without ImageStart")
                self.expect(part.end.image_index == current["start"].image_index,
                            "ImageEnd.image_index %d != ImageStart's %d"
                            % (part.end.image_index, current["start"].image_index))
                current["end"] = part.end
                images.append(current)
                current = None
            elif which == "whole":
                w = part.whole
                self.expect(whole, "ImageWhole sent to a request without accepts_whole_images")
                self.expect(current is None, "ImageWhole before the previous ImageEnd")
                self.expect(w.start.image_index == len(images),
                            "ImageWhole image_index %d, want %d" % (w.start.image_index, len(images)))
                self.expect(len(w.data) <= MAX_CHUNK, "ImageWhole of %d bytes > 64 KiB" % len(w.data))
                images.append({"start": w.start, "data": bytearray(w.data), "chunks": 0, "whole": True,
                               "end": img.ImageEnd(image_index=w.start.image_index, is_final=w.is_final)})
            elif which == "progress":
                pass
            else:
                raise CheckFailed("ImageResponse with no known part: %s" % hexdump(payload))
        return images, call.status

    def verify_image(self, im, asset, tw, th, fill, exact=True):
        s = im["start"]
        data = bytes(im["data"])
        self.expect(len(data) == s.byte_count,
                    "reassembled %d bytes, ImageStart.byte_count %d" % (len(data), s.byte_count))
        self.expect(data[:2] == b"\xff\xd8", "image does not start with FFD8: %s" % data[:4].hex())
        self.expect(data[-2:] == b"\xff\xd9", "image does not end with FFD9: %s" % data[-4:].hex())
        self.expect(s.uniform_type_identifier == "public.jpeg",
                    "uniform_type_identifier %r" % s.uniform_type_identifier)
        dims = jpeg_size(data)
        self.expect(dims == (s.width, s.height),
                    "JPEG SOF says %s, ImageStart says %dx%d" % (dims, s.width, s.height))
        w, h = dims
        pw, ph = asset.pixel_width, asset.pixel_height
        self.expect(w <= pw and h <= ph, "%dx%d is upscaled from %dx%d" % (w, h, pw, ph))
        if exact:
            ew, eh = expected_geometry(pw, ph, tw, th, fill)
            self.expect(abs(w - ew) <= 1 and abs(h - eh) <= 1,
                        "%dx%d for a %dx%d asset, target %dx%d %s: expected about %.1fx%.1f"
                        % (w, h, pw, ph, tw, th, "fill" if fill else "fit", ew, eh))
            if tw and th:
                if fill:
                    if max(tw / pw, th / ph) < 1:   # not capped by "never upscaled"
                        self.expect(w >= tw and h >= th, "fill result %dx%d does not cover %dx%d" % (w, h, tw, th))
                else:
                    self.expect(w <= tw and h <= th, "fit result %dx%d is not inside %dx%d" % (w, h, tw, th))
            # Upright: orientation of the output matches the asset's upright aspect.
            if pw != ph and (tw or th):
                self.expect((w > h) == (pw > ph) or abs(w - h) <= 1,
                            "output %dx%d is not upright for an upright %dx%d asset" % (w, h, pw, ph))
        return w, h

    def first_asset(self):
        self.expect(self.assets, "no assets to request images of")
        return self.assets[0]

    def t_image_fit(self):
        a = self.first_asset()
        tw, th = self.args.image_size
        images, st = self.request_image(a, tw, th, fill=False)
        self.expect_ok(st, "RequestImage")
        self.expect(len(images) == 1, "highQualityFormat delivered %d images" % len(images))
        self.expect(images[0]["end"].is_final, "ImageEnd.is_final is false on the only image")
        self.expect(not images[0]["start"].degraded, "highQualityFormat image flagged degraded")
        w, h = self.verify_image(images[0], a, tw, th, fill=False)
        if self.args.save_image:
            with open(self.args.save_image, "wb") as f:
                f.write(images[0]["data"])
        return "%s -> %dx%d JPEG, %d bytes in %d chunks" % (
            a.local_identifier, w, h, len(images[0]["data"]), images[0]["chunks"])

    def t_image_fill(self):
        a = self.first_asset()
        tw, th = self.args.image_size
        images, st = self.request_image(a, tw, th, fill=True)
        self.expect_ok(st, "RequestImage")
        self.expect(len(images) == 1, "delivered %d images" % len(images))
        w, h = self.verify_image(images[0], a, tw, th, fill=True)
        return "aspectFill %dx%d -> %dx%d (covers, not cropped)" % (tw, th, w, h)

    def t_image_opportunistic(self):
        a = self.first_asset()
        tw, th = self.args.image_size
        images, st = self.request_image(a, tw, th, delivery=pb.images.DELIVERY_MODE_OPPORTUNISTIC)
        self.expect_ok(st, "RequestImage")
        self.expect(len(images) in (1, 2), "opportunistic delivered %d images" % len(images))
        for i, im in enumerate(images):
            last = i == len(images) - 1
            self.expect(im["end"].is_final == last, "image %d: is_final=%s" % (i, im["end"].is_final))
            if len(images) == 2:
                self.expect(im["start"].degraded == (i == 0), "image %d: degraded=%s" % (i, im["start"].degraded))
            self.verify_image(im, a, tw, th, fill=False, exact=(i == len(images) - 1))
        return " then ".join("%dx%d%s" % (im["start"].width, im["start"].height,
                                          " (degraded)" if im["start"].degraded else "")
                             for im in images)

    def t_image_whole(self):
        # accepts_whole_images: a thumbnail (at most 64 KiB) comes as one ImageWhole, rendered
        # and then cached; an image over 64 KiB still comes in parts.
        a = self.first_asset()
        forms = []
        for attempt in ("rendered", "cached"):
            images, st = self.request_image(a, 128, 128, whole=True)
            self.expect_ok(st, "RequestImage(accepts_whole_images) %s" % attempt)
            self.expect(len(images) == 1, "delivered %d images" % len(images))
            self.expect(images[0].get("whole", False), "a %d-byte %s image came in parts"
                        % (len(images[0]["data"]), attempt))
            self.expect(images[0]["end"].is_final, "ImageWhole.is_final is false on the only image")
            self.verify_image(images[0], a, 128, 128, fill=False)
            forms.append(len(images[0]["data"]))
        images, st = self.request_image(a, 0, 0, whole=True)
        self.expect_ok(st, "RequestImage(0x0, accepts_whole_images)")
        self.expect(len(images) == 1 and not images[0].get("whole", False),
                    "a %d-byte image came as one ImageWhole" % len(images[0]["data"]))
        self.verify_image(images[0], a, 0, 0, fill=False)
        return "128x128: one ImageWhole of %d bytes (rendered and cached); 0x0: %d bytes in %d chunks" % (
            forms[0], len(images[0]["data"]), images[0]["chunks"])

    def t_image_max_size(self):
        # 0x0 = maximum size: megabytes through 128 KiB windows -> flow control at work.
        a = self.first_asset()
        before = self.conn.stats["window_updates_sent"]
        images, st = self.request_image(a, 0, 0)
        self.expect_ok(st, "RequestImage(0x0)")
        self.expect(len(images) == 1, "delivered %d images" % len(images))
        w, h = self.verify_image(images[0], a, 0, 0, fill=False)
        self.upload_data = images[0]["data"]
        self.expect((w, h) == (a.pixel_width, a.pixel_height),
                    "maximum size gave %dx%d, asset is %dx%d" % (w, h, a.pixel_width, a.pixel_height))
        n = len(images[0]["data"])
        self.expect(self.conn.stats["max_unconsumed_conn"] <= self.conn._initial_conn,
                    "server overran the connection window")
        return "%dx%d, %d bytes through a %d-byte window; %d WINDOW_UPDATEs sent" % (
            w, h, n, CLIENT_CONNECTION_WINDOW, self.conn.stats["window_updates_sent"] - before)

    def t_slow_reader(self):
        # Open a big image call, read nothing for a while: the server must stop at the windows.
        a = self.first_asset()
        c = connect(self.args, "slow")
        self._last_conn = c
        try:
            c.handshake(self.args.token)
            req = pb.images.ImageRequest(asset_identifier=a.local_identifier,
                                         delivery_mode=pb.images.DELIVERY_MODE_HIGH_QUALITY_FORMAT,
                                         bypass_cache=True)
            call = c.open_call("RequestImage")
            c.send_message(call, req, end_stream=True)
            # Read frames without consuming (no WINDOW_UPDATE) for 2 seconds.
            end = time.monotonic() + 2.0
            while time.monotonic() < end and call.status is None:
                try:
                    c.pump(end - time.monotonic())
                except socket.timeout:
                    break
            buffered = sum(len(p) for p in call.inbox)
            self.expect(buffered <= CLIENT_STREAM_WINDOW,
                        "server sent %d bytes without credit (window %d)" % (buffered, CLIENT_STREAM_WINDOW))
            stalled = call.status is None
            # Now consume everything: the call must complete.
            images = []
            total = 0
            while True:
                p = c.next_message(call)
                if p is None:
                    break
                part = pb.images.ImageResponse.FromString(p)
                if part.WhichOneof("part") == "chunk":
                    total += len(part.chunk.data)
            self.expect_ok(call.status, "RequestImage after resuming")
            return "%d bytes buffered while not reading (window %d)%s; %d image bytes after resuming" % (
                buffered, CLIENT_STREAM_WINDOW, ", sender stalled" if stalled else "", total)
        finally:
            c.close()

    def t_concurrent_calls(self):
        # Interleave: a large image call and several small calls on one connection.
        a = self.first_asset()
        img = pb.images
        big = self.conn.open_call("RequestImage")
        self.conn.send_message(big, img.ImageRequest(
            asset_identifier=a.local_identifier, delivery_mode=img.DELIVERY_MODE_HIGH_QUALITY_FORMAT),
            end_stream=True)
        small = []
        for i in range(4):
            c = self.conn.open_call("GetLibraryInfo")
            self.conn.send_message(c, b"", end_stream=True)   # Empty as a zero-length MESSAGE
            small.append(c)
        for c in small:
            msgs, st = self.conn.collect(c, pb.library.LibraryInfo)
            self.expect_ok(st, "GetLibraryInfo on stream %d" % c.stream)
            self.expect(len(msgs) == 1, "stream %d: %d responses" % (c.stream, len(msgs)))
        big_done_first = big.status is not None
        parts, st = self.conn.collect(big, img.ImageResponse)
        self.expect_ok(st, "RequestImage on stream %d" % big.stream)
        return "4 unary calls finished %s the image call on stream %d (%d parts)" % (
            "after" if big_done_first else "while waiting for", big.stream, len(parts))

    def t_cancel(self):
        a = self.first_asset()
        c = self.conn
        call = c.open_call("RequestImage")
        c.send_message(call, pb.images.ImageRequest(
            asset_identifier=a.local_identifier, delivery_mode=pb.images.DELIVERY_MODE_HIGH_QUALITY_FORMAT,
            bypass_cache=True), end_stream=True)
        first = c.next_message(call)
        self.expect(first is not None, "RequestImage ended (%s) before we could cancel"
                    % (fmt_status(call.status) if call.status else "?"))
        c.cancel(call, "interop: cancel test")
        # The connection goes on: a new call works, and the cancelled stream gets no STATUS.
        msgs, st = c.unary("GetLibraryInfo", pb.Empty(), pb.library.LibraryInfo)
        self.expect_ok(st, "GetLibraryInfo after CANCEL")
        # Give in-flight frames time to arrive, then check.
        end = time.monotonic() + 1.0
        while time.monotonic() < end:
            try:
                c.pump(end - time.monotonic())
            except socket.timeout:
                break
        late = c.cancelled.get(call.stream, 0)
        self.expect(late <= CLIENT_STREAM_WINDOW,
                    "%d MESSAGE bytes after CANCEL, more than one window" % late)
        st = c.cancelled_status.get(call.stream)
        self.expect(st is None or st.code == 0,
                    "a STATUS %s arrived on the cancelled stream" % (fmt_status(st) if st else ""))
        return "%d in-flight bytes discarded; %s" % (
            late, "no STATUS on the cancelled stream" if st is None else "STATUS OK crossed the CANCEL")

    def t_cancel_image_request(self):
        a = self.first_asset()
        c = self.conn
        img = c.open_call("RequestImage")
        c.send_message(img, pb.images.ImageRequest(
            asset_identifier=a.local_identifier, delivery_mode=pb.images.DELIVERY_MODE_HIGH_QUALITY_FORMAT,
            bypass_cache=True, request_id=4242), end_stream=True)
        first = c.next_message(img)       # the call is running (and, with our small window, waiting)
        self.expect(first is not None, "RequestImage ended (%s) before we could cancel it"
                    % (fmt_status(img.status) if img.status else "?"))
        msgs, st = c.unary("CancelImageRequest", pb.images.CancelImageRequestRequest(request_id=4242), pb.Empty)
        if st.code == 0:
            parts, ist = c.collect(img, pb.images.ImageResponse)
            self.expect(ist.code == pb.transport.STATUS_CODE_CANCELLED,
                        "cancelled image call ended with STATUS %s, want CANCELLED" % fmt_status(ist))
        else:
            # Raced with the end of the image call: allowed (NOT_FOUND).
            self.expect(st.code == pb.transport.STATUS_CODE_NOT_FOUND,
                        "CancelImageRequest: STATUS %s" % fmt_status(st))
            parts, ist = c.collect(img, pb.images.ImageResponse)
            self.expect_ok(ist, "image call that finished first")
            return "image call finished before the cancel (NOT_FOUND)"
        msgs, st2 = c.unary("CancelImageRequest", pb.images.CancelImageRequestRequest(request_id=4242), pb.Empty)
        self.expect(st2.code == pb.transport.STATUS_CODE_NOT_FOUND,
                    "CancelImageRequest for a finished id: STATUS %s, want NOT_FOUND" % fmt_status(st2))
        return "image call ended with %s; again -> %s" % (fmt_status(ist), code_name(st2.code))

    def t_unary_request_count(self):
        c = self.conn
        out = []
        none = c.open_call("GetLibraryInfo", end_stream=True)          # no request message
        m, st = c.collect(none, pb.library.LibraryInfo)
        self.expect(st.code == pb.transport.STATUS_CODE_INVALID_ARGUMENT,
                    "unary call without a request: STATUS %s, want INVALID_ARGUMENT" % fmt_status(st))
        two = c.open_call("GetLibraryInfo")
        c.send_message(two, b"")
        c.send_message(two, b"", end_stream=True)
        m, st2 = c.collect(two, pb.library.LibraryInfo)
        self.expect(st2.code == pb.transport.STATUS_CODE_INVALID_ARGUMENT,
                    "unary call with two requests: STATUS %s, want INVALID_ARGUMENT" % fmt_status(st2))
        return "0 and 2 requests -> INVALID_ARGUMENT"

    def t_upload(self):
        # Client-streaming, client -> server flow control. The upload is only staged (it
        # expires unless PerformChanges uses it): the library is not changed.
        import hashlib
        data = bytes(self.upload_data)
        c = self.conn
        call = c.open_call("UploadAsset")
        ch = pb.changes
        c.send_message(call, ch.UploadChunk(header=ch.UploadHeader(
            original_filename="interop.jpg", size=len(data), uniform_type_identifier="public.jpeg")))
        chunks = 0
        for off in range(0, len(data), MAX_CHUNK):
            if call.status is not None:
                break
            last = off + MAX_CHUNK >= len(data)
            c.send_message(call, ch.UploadChunk(data=data[off:off + MAX_CHUNK]), end_stream=last)
            chunks += 1
        msgs, st = c.collect(call, ch.UploadResult)
        if st.code == pb.transport.STATUS_CODE_UNIMPLEMENTED:
            return "not built: %s" % fmt_status(st)
        self.expect_ok(st, "UploadAsset")
        self.expect(len(msgs) == 1, "client-streaming call got %d responses" % len(msgs))
        r = msgs[0]
        self.expect(r.size == len(data), "UploadResult.size %d, sent %d" % (r.size, len(data)))
        self.expect(r.sha256 == hashlib.sha256(data).hexdigest(), "UploadResult.sha256 %s is not the data's" % r.sha256)
        return "%d bytes in %d chunks through a %d-byte server window; upload_id=%s%s" % (
            len(data), chunks, c.peer_stream_window, r.upload_id,
            ", already in the library as " + r.existing_asset_identifier if r.existing_asset_identifier else "")

    def t_deadline(self):
        a = self.first_asset()
        images, st = self.request_image(a, 0, 0, timeout_ms=1, bypass_cache=True)
        self.expect(st is not None and st.code == pb.transport.STATUS_CODE_DEADLINE_EXCEEDED,
                    "RequestImage(0x0, timeout_ms=1): STATUS %s, want DEADLINE_EXCEEDED"
                    % (fmt_status(st) if st else None))
        return fmt_status(st)

    # -- call errors -------------------------------------------------------------------

    def t_unknown_method(self):
        msgs, st = self.conn.unary("/photolib.v1.PhotoLibrary/NoSuchMethod", pb.Empty(), pb.Empty)
        self.expect(st.code == pb.transport.STATUS_CODE_UNIMPLEMENTED,
                    "unknown method: STATUS %s, want UNIMPLEMENTED" % fmt_status(st))
        self.expect(not msgs, "unknown method sent %d response messages" % len(msgs))
        msgs, st2 = self.conn.unary("/other.Service/GetLibraryInfo", pb.Empty(), pb.Empty)
        self.expect(st2.code == pb.transport.STATUS_CODE_UNIMPLEMENTED,
                    "wrong service name: STATUS %s, want UNIMPLEMENTED" % fmt_status(st2))
        return fmt_status(st)

    def t_unbuilt_method(self):
        msgs, st = self.conn.unary("FetchPersistentChanges", pb.observation.PersistentChangesRequest(),
                                   pb.observation.PersistentChangesResponse)
        self.expect(st.code in (0, pb.transport.STATUS_CODE_UNIMPLEMENTED),
                    "FetchPersistentChanges: STATUS %s" % fmt_status(st))
        return fmt_status(st)

    def t_undecodable(self):
        # Field 1 (string) announcing 5 bytes, only 2 present: not a decodable message.
        call = self.conn.open_call("FetchResultObjects")
        self.conn.send_message(call, b"\x0a\x05ab", end_stream=True)
        msgs, st = self.conn.collect(call, pb.library.FetchResultObjectsResponse)
        self.expect(st.code == pb.transport.STATUS_CODE_INVALID_ARGUMENT,
                    "undecodable request: STATUS %s, want INVALID_ARGUMENT" % fmt_status(st))
        return fmt_status(st)

    def t_invalid_text(self):
        out = []
        # Not UTF-8 (hand-encoded: the runtime refuses to serialise it).
        for label, raw in (("non-UTF-8", b"\x0a\x03a\xffb"), ("NUL", b"\x0a\x03a\x00b")):
            call = self.conn.open_call("FetchResultIndex")
            self.conn.send_message(call, raw + b"\x12\x01x", end_stream=True)
            msgs, st = self.conn.collect(call, pb.library.FetchResultIndexResponse)
            self.expect(st.code == pb.transport.STATUS_CODE_INVALID_ARGUMENT
                        and st.reason == pb.transport.ERROR_REASON_INVALID_TEXT,
                        "%s text: STATUS %s, want INVALID_ARGUMENT/INVALID_TEXT" % (label, fmt_status(st)))
            out.append(label)
        # Nested: FetchAssetsRequest.options.predicate with a NUL.
        req = pb.library.FetchAssetsRequest(options=pb.library.FetchOptions(predicate="isFavorite == true\x00"))
        msgs, st = self.conn.unary("FetchAssets", req, pb.library.FetchResultSnapshot)
        self.expect(st.code == pb.transport.STATUS_CODE_INVALID_ARGUMENT
                    and st.reason == pb.transport.ERROR_REASON_INVALID_TEXT,
                    "nested NUL text: STATUS %s, want INVALID_ARGUMENT/INVALID_TEXT" % fmt_status(st))
        out.append("nested NUL")
        return ", ".join(out) + " -> INVALID_ARGUMENT/INVALID_TEXT"

    def t_expired_snapshot(self):
        msgs, st = self.conn.unary("FetchResultObjects", pb.library.FetchResultObjectsRequest(
            fetch_result_id="no-such-snapshot", offset=0, length=1), pb.library.FetchResultObjectsResponse)
        self.expect(st.code == pb.transport.STATUS_CODE_FAILED_PRECONDITION
                    and st.reason == pb.transport.ERROR_REASON_FETCH_RESULT_EXPIRED,
                    "unknown snapshot: STATUS %s, want FAILED_PRECONDITION/FETCH_RESULT_EXPIRED" % fmt_status(st))
        return fmt_status(st)

    def t_concurrency_limit(self):
        w = self.conn.welcome
        limit = w.max_concurrent_streams
        if not limit or limit > 1000:
            self.info("concurrency limit", "skipped: max_concurrent_streams=%d" % limit)
            return "skipped (max_concurrent_streams=%d)" % limit
        c = connect(self.args, "streams")
        self._last_conn = c
        try:
            c.handshake(self.args.token)
            # Calls that stay open: CALL without END_STREAM, request not sent yet.
            held = [c.open_call("GetLibraryInfo") for _ in range(limit)]
            extra = c.open_call("GetLibraryInfo")
            c.send_message(extra, b"", end_stream=True)
            msgs, st = c.collect(extra, pb.library.LibraryInfo)
            self.expect(st.code == pb.transport.STATUS_CODE_RESOURCE_EXHAUSTED,
                        "call %d of %d allowed: STATUS %s, want RESOURCE_EXHAUSTED"
                        % (limit + 1, limit, fmt_status(st)))
            self.expect(not any(h.status for h in held), "a held call ended early")
            # Finish the held calls normally: each now gets its request.
            for h in held:
                c.send_message(h, b"", end_stream=True)
            for h in held:
                msgs, hst = c.collect(h, pb.library.LibraryInfo)
                self.expect_ok(hst, "held call %d" % h.stream)
            return "%d open calls allowed, call %d refused: %s" % (limit, limit + 1, fmt_status(st))
        finally:
            c.close()

    # -- connection-level errors ---------------------------------------------------------

    def _fresh(self, label):
        c = connect(self.args, label)
        self._last_conn = c
        return c

    def _expect_goaway(self, c, code, reason=None, what=""):
        ga, eof = c.expect_goaway_and_close(timeout=min(10.0, self.args.timeout))
        self.expect(ga is not None, "%s: no GOAWAY (connection %s)" % (what, "closed" if eof else "still open"))
        self.expect(ga.status.code == code, "%s: GOAWAY %s, want %s" % (what, fmt_status(ga.status), code_name(code)))
        if reason is not None:
            self.expect(ga.status.reason == reason, "%s: GOAWAY %s, want reason %s"
                        % (what, fmt_status(ga.status), reason_name(reason)))
        self.expect(eof, "%s: server did not close the connection after GOAWAY" % what)
        return fmt_status(ga.status)

    def t_wrong_token(self):
        c = self._fresh("badtoken")
        try:
            c.hello(self.args.token + "x")
            out = "wrong: " + self._expect_goaway(c, pb.transport.STATUS_CODE_UNAUTHENTICATED, what="wrong token")
        finally:
            c.close()
        # Section 4.2: an empty token opens a connection without a credential, which may only
        # ask for authorization; any other call answers UNAUTHENTICATED.
        c = self._fresh("notoken")
        try:
            w = c.handshake("")
            if w.is_owner or w.authorization_status != pb.transport.AUTHORIZATION_STATUS_NOT_DETERMINED:
                raise CheckFailed("empty token: WELCOME says is_owner=%s status=%s" % (w.is_owner, w.authorization_status))
            _, st = c.unary("GetLibraryInfo", pb.Empty(), pb.library.LibraryInfo)
            if st.code != pb.transport.STATUS_CODE_UNAUTHENTICATED:
                raise CheckFailed("empty token: GetLibraryInfo answered %s, expected UNAUTHENTICATED" % fmt_status(st))
            out += "; empty: WELCOME without credential, GetLibraryInfo " + fmt_status(st)
        finally:
            c.close()
        return out

    def t_bad_version(self):
        c = self._fresh("badversion")
        try:
            c.hello(self.args.token, version=99)
            return self._expect_goaway(c, pb.transport.STATUS_CODE_FAILED_PRECONDITION, what="protocol_version 99")
        finally:
            c.close()

    def t_first_frame_not_hello(self):
        c = self._fresh("nohello")
        try:
            c.send_frame(PING, 0, 0, pb.Ping(opaque=1))
            return self._expect_goaway(c, pb.transport.STATUS_CODE_INVALID_ARGUMENT, what="PING before HELLO")
        finally:
            c.close()

    def t_undecodable_hello(self):
        c = self._fresh("badhello")
        try:
            c.send_frame(HELLO, 0, 0, b"\x12\x09abc")   # token field truncated
            return self._expect_goaway(c, pb.transport.STATUS_CODE_INVALID_ARGUMENT, what="undecodable HELLO")
        finally:
            c.close()

    def t_oversized_hello(self):
        c = self._fresh("bighello")
        try:
            # Only the header: a receiver checks `length` before reading the payload.
            c.send_raw(HEADER.pack(HELLO_LIMIT + 1, HELLO, 0, 0))
            return self._expect_goaway(c, pb.transport.STATUS_CODE_RESOURCE_EXHAUSTED,
                                       pb.transport.ERROR_REASON_PROTOCOL_VIOLATION, what="HELLO of 64 KiB + 1")
        finally:
            c.close()

    def t_unknown_frame_type(self):
        c = self._fresh("badtype")
        try:
            c.handshake(self.args.token)
            c.send_frame(42, 0, 0, b"")
            return self._expect_goaway(c, pb.transport.STATUS_CODE_INVALID_ARGUMENT,
                                       pb.transport.ERROR_REASON_PROTOCOL_VIOLATION, what="frame type 42")
        finally:
            c.close()

    def t_oversized_frame(self):
        c = self._fresh("bigframe")
        try:
            w = c.handshake(self.args.token)
            limit = w.max_frame_size or DEFAULT_MAX_FRAME
            call = c.open_call("FetchAssets")          # stream 1, open, awaiting its request
            c.send_raw(HEADER.pack(limit + 1, MESSAGE, 0, call.stream))
            c.calls.clear()
            return self._expect_goaway(c, pb.transport.STATUS_CODE_RESOURCE_EXHAUSTED,
                                       pb.transport.ERROR_REASON_PROTOCOL_VIOLATION,
                                       what="frame of max_frame_size + 1 (%d)" % (limit + 1))
        finally:
            c.close()

    def _violation_case(self, label, send):
        c = self._fresh(label)
        try:
            c.handshake(self.args.token)
            send(c)
            return self._expect_goaway(c, pb.transport.STATUS_CODE_INVALID_ARGUMENT,
                                       pb.transport.ERROR_REASON_PROTOCOL_VIOLATION, what=label)
        finally:
            c.close()

    def t_stream_rules(self):
        def reuse(c):
            for s in (3, 3):
                c.send_frame(CALL, 0, s, pb.CallStart(method=SERVICE + "GetLibraryInfo"))
        def unopened(c):
            c.send_frame(MESSAGE, END_STREAM, 7, b"")
        def zero_update(c):
            c.send_frame(WINDOW_UPDATE, 0, 0, pb.WindowUpdate(increment=0))
        def overflow(c):
            c.send_frame(WINDOW_UPDATE, 0, 0, pb.WindowUpdate(increment=MAX_WINDOW))
        def wrong_stream(c):
            c.send_frame(PING, 0, 5, pb.Ping(opaque=1))
        def reserved_bit(c):
            c.send_raw(HEADER.pack(0, PING, 0, 0x80000000))
        cases = (("stream id reused", reuse), ("MESSAGE on an unopened stream", unopened),
                 ("WINDOW_UPDATE of 0", zero_update),
                 ("window above 2^31-1", overflow), ("PING on stream 5", wrong_stream),
                 ("reserved stream-id bit", reserved_bit))
        for label, fn in cases:
            self._violation_case(label, fn)
        return "%d violations -> GOAWAY INVALID_ARGUMENT/PROTOCOL_VIOLATION" % len(cases)

    def t_ignored_races(self):
        c = self.conn
        c.send_frame(WINDOW_UPDATE, 0, 999999, pb.WindowUpdate(increment=100))
        c.send_frame(CANCEL, 0, 1, pb.Cancel(reason="long finished"))
        c.send_frame(PING, 0xF0, 0, pb.Ping(opaque=0xABCDEF))   # reserved flag bits: ignored
        c.pings[0xABCDEF] = time.monotonic()
        deadline = time.monotonic() + self.args.timeout
        while 0xABCDEF not in c.pong:
            if c.pump(deadline - time.monotonic()) is None or c.goaway is not None:
                raise CheckFailed("connection ended: %s" % (fmt_status(c.goaway.status) if c.goaway else "closed"))
        return "WINDOW_UPDATE/CANCEL for ended streams and reserved flags ignored"

    def t_no_hello(self):
        c = self._fresh("silent")
        try:
            t0 = time.monotonic()
            ga, eof = c.expect_goaway_and_close(timeout=min(15.0, max(self.args.timeout, 12.0)))
            dt = time.monotonic() - t0
            self.expect(eof, "connection still open %.1f s after connecting without HELLO" % dt)
            self.expect(dt >= 9.0, "closed after %.1f s, before the 10 s allowed for HELLO" % dt)
            return "closed after %.1f s%s" % (dt, " with GOAWAY " + fmt_status(ga.status) if ga else "")
        finally:
            c.close()

    def t_still_alive(self):
        # After all of the above, the main connection still works.
        msgs, st = self.conn.unary("GetLibraryInfo", pb.Empty(), pb.library.LibraryInfo)
        self.expect_ok(st, "GetLibraryInfo")
        rtt = self.conn.ping(0x1122334455667788)
        return "main connection alive; %d server PINGs answered" % self.conn.stats["server_pings_answered"]

    def t_polite_close(self):
        c = self.conn
        c.send_frame(GOAWAY, 0, 0, pb.GoAway(last_stream_id=0, status=pb.Status(code=0)))
        ga, eof = c.expect_goaway_and_close(timeout=5.0)
        c.close()
        return "server closed after our GOAWAY" if eof else "server kept the connection open (allowed)"

    # -- run ---------------------------------------------------------------------------

    def run(self):
        if not self.check("handshake (HELLO/WELCOME)", self.t_handshake):
            self.summary()
            return
        self.check("PING / ACK", self.t_ping)
        self.check("GetLibraryInfo (unary)", self.t_library_info)
        have_assets = self.check("FetchAssets (prefetch + paging)", self.t_fetch_assets)
        if have_assets and self.assets:
            self.check("FetchResultObjects / FetchResultIndex", self.t_fetch_result_paging)
        self.check("FetchAssetCollections", self.t_fetch_collections)
        self.check("ReleaseFetchResult then expired", self.t_release_then_expired)
        self.check("unknown snapshot id -> FETCH_RESULT_EXPIRED", self.t_expired_snapshot)
        if self.assets:
            w, h = self.args.image_size
            self.check("RequestImage %dx%d aspectFit" % (w, h), self.t_image_fit)
            self.check("RequestImage %dx%d aspectFill" % (w, h), self.t_image_fill)
            self.check("RequestImage opportunistic", self.t_image_opportunistic)
            self.check("RequestImage 0x0 (max size, flow control)", self.t_image_max_size)
            self.check("RequestImage accepts_whole_images", self.t_image_whole)
            self.check("slow reader bounded by windows", self.t_slow_reader)
            self.check("concurrent calls (multiplexing)", self.t_concurrent_calls)
            self.check("CANCEL", self.t_cancel)
            self.check("CancelImageRequest -> CANCELLED", self.t_cancel_image_request)
            self.check("deadline -> DEADLINE_EXCEEDED", self.t_deadline)
            if getattr(self, "upload_data", None):
                self.check("UploadAsset (client-streaming)", self.t_upload)
        self.check("unknown method -> UNIMPLEMENTED", self.t_unknown_method)
        self.check("unbuilt method -> UNIMPLEMENTED or OK", self.t_unbuilt_method)
        self.check("undecodable request -> INVALID_ARGUMENT", self.t_undecodable)
        self.check("unary with 0 / 2 requests -> INVALID_ARGUMENT", self.t_unary_request_count)
        self.check("ended-stream races ignored", self.t_ignored_races)
        self.check("invalid text -> INVALID_TEXT", self.t_invalid_text)
        self.check("max_concurrent_streams", self.t_concurrency_limit)
        self.check("wrong token -> GOAWAY UNAUTHENTICATED; no token -> UNAUTHENTICATED calls", self.t_wrong_token)
        self.check("protocol_version 99 -> FAILED_PRECONDITION", self.t_bad_version)
        self.check("first frame not HELLO -> INVALID_ARGUMENT", self.t_first_frame_not_hello)
        self.check("undecodable HELLO -> INVALID_ARGUMENT", self.t_undecodable_hello)
        self.check("HELLO > 64 KiB -> RESOURCE_EXHAUSTED", self.t_oversized_hello)
        self.check("unknown frame type -> GOAWAY", self.t_unknown_frame_type)
        self.check("frame > max_frame_size -> GOAWAY", self.t_oversized_frame)
        self.check("stream/window rule violations -> GOAWAY", self.t_stream_rules)
        if not self.args.quick:
            self.check("no HELLO within 10 s -> closed", self.t_no_hello)
        self.check("main connection still alive", self.t_still_alive)
        self.check("client GOAWAY", self.t_polite_close)
        self.summary()

    def summary(self):
        if self.conn:
            self.conn.close()
        if self.failures:
            print()
            print("failures:")
            for name, msg in self.failures:
                print("  - %s: %s" % (name, msg))
        print("interop: %d passed, %d failed" % (self.passed, self.failed))


def parse_size(text):
    m = re.fullmatch(r"(\d+)[xX](\d+)", text)
    if not m:
        raise argparse.ArgumentTypeError("expected WxH, e.g. 200x200")
    return int(m.group(1)), int(m.group(2))


def main(argv=None):
    here = os.path.dirname(os.path.abspath(__file__))
    ap = argparse.ArgumentParser(description="PhotoLib protocol interoperability client")
    ap.add_argument("--server", required=True, help="HOST:PORT of photolibd")
    ap.add_argument("--token", help="owner token (default: read from --token-file)")
    ap.add_argument("--token-file", help="file holding the token, e.g. LIBRARY/owner.token")
    ap.add_argument("--fingerprint", type=parse_fingerprint,
                    help="connect with TLS and pin the server certificate's SHA256:... fingerprint")
    ap.add_argument("--expect-assets", type=int, help="the library must hold exactly N assets")
    ap.add_argument("--image-size", type=parse_size, default=(200, 200), help="target WxH (default 200x200)")
    ap.add_argument("--protos", default=os.path.normpath(os.path.join(here, "..", "..", "Protos")),
                    help="directory of the .proto files (default: the repository's Protos/)")
    ap.add_argument("--prefetch", type=int, default=200, help="page size for fetches (default 200)")
    ap.add_argument("--timeout", type=float, default=30.0, help="socket read timeout, at most 30 s")
    ap.add_argument("--save-image", help="write the aspectFit JPEG here")
    ap.add_argument("--trace", action="store_true", help="print every frame to stderr")
    ap.add_argument("--quick", action="store_true", help="skip the 10-second HELLO-timeout check")
    args = ap.parse_args(argv)

    host, sep, port = args.server.rpartition(":")
    if not sep or not port.isdigit():
        ap.error("--server must be HOST:PORT")
    args.host, args.port = host.strip("[]"), int(port)
    args.timeout = max(1.0, min(args.timeout, 30.0))
    if not 1 <= args.prefetch <= 1000:
        ap.error("--prefetch must be 1...1000")
    if args.token is None:
        if not args.token_file:
            ap.error("--token or --token-file is required")
        with open(args.token_file) as f:
            args.token = f.read().strip()

    global TLS_PIN
    TLS_PIN = args.fingerprint

    try:
        load_protos(args.protos)
    except SystemExit as e:
        print("interop: setup failed: %s" % e, file=sys.stderr)
        return 2
    try:
        socket.create_connection((args.host, args.port), timeout=args.timeout).close()
    except OSError as e:
        print("interop: cannot connect to %s: %s" % (args.server, e), file=sys.stderr)
        print("interop: 0 passed, 1 failed")
        return 1

    r = Runner(args)
    r.run()
    return 0 if r.failed == 0 and r.passed > 0 else 1


if __name__ == "__main__":
    sys.exit(main())
