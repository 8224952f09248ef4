#!/usr/bin/env python3
"""Generates PhotoLibWire's Swift message types and their protobuf-c codecs from Protos/.

    protoc --include_source_info --descriptor_set_out=protos.pb Protos/*.proto
    protoc-gen-swift-codecs.py protos.pb OUTPUT_DIR

For every message of package photolib.v1 it writes a plain Swift value type `Wire.<Name>`
(fields in lowerCamelCase, message fields optional, repeated fields arrays, each oneof an
enum) and its conversion to and from the C struct that protoc-c generates, so that
`Wire.<Name>(decoding:)` / `.encoded()` run protobuf-c's unpack / pack. Every enum becomes
an open Swift enum with an `unrecognized(Int32)` case, as proto3 enums are open. The service
becomes `PhotoLibraryMethods`, one typed `MethodDescriptor` per method.

One output file per .proto file (`<name>.pb.swift`). Scripts/generate-protos runs this and
compares the result with the committed copy. Needs python3-protobuf (Debian).
"""
import os
import re
import sys

from google.protobuf import descriptor_pb2 as pb

FD = pb.FieldDescriptorProto
PACKAGE = "photolib.v1"
C_PREFIX = "Photolib__V1__"
FN_PREFIX = "photolib__v1__"
NAMESPACE = "Wire"

SWIFT_KEYWORDS = {
    "associatedtype", "class", "deinit", "enum", "extension", "fileprivate", "func", "import", "init",
    "inout", "internal", "let", "open", "operator", "private", "protocol", "public", "rethrows", "static",
    "struct", "subscript", "typealias", "var", "break", "case", "continue", "default", "defer", "do",
    "else", "fallthrough", "for", "guard", "if", "in", "repeat", "return", "switch", "where", "while",
    "as", "Any", "catch", "false", "is", "nil", "super", "self", "Self", "throw", "throws", "true", "try",
}

# Words written in capitals inside a Swift name (Swift's API guidelines): upload_id → uploadID.
INITIALISMS = {"id": "ID", "ids": "IDs", "url": "URL", "uti": "UTI"}

SCALARS = {
    # proto type: (Swift type, default, C → Swift, Swift → C)
    FD.TYPE_DOUBLE: ("Double", "0", "{c}", "{s}"),
    FD.TYPE_FLOAT: ("Float", "0", "{c}", "{s}"),
    FD.TYPE_INT64: ("Int64", "0", "{c}", "{s}"),
    FD.TYPE_SINT64: ("Int64", "0", "{c}", "{s}"),
    FD.TYPE_SFIXED64: ("Int64", "0", "{c}", "{s}"),
    FD.TYPE_UINT64: ("UInt64", "0", "{c}", "{s}"),
    FD.TYPE_FIXED64: ("UInt64", "0", "{c}", "{s}"),
    FD.TYPE_INT32: ("Int32", "0", "{c}", "{s}"),
    FD.TYPE_SINT32: ("Int32", "0", "{c}", "{s}"),
    FD.TYPE_SFIXED32: ("Int32", "0", "{c}", "{s}"),
    FD.TYPE_UINT32: ("UInt32", "0", "{c}", "{s}"),
    FD.TYPE_FIXED32: ("UInt32", "0", "{c}", "{s}"),
    FD.TYPE_BOOL: ("Bool", "false", "{c} != 0", "{s} ? 1 : 0"),
    FD.TYPE_STRING: ("String", '""', "ProtoCodec.string({c})", "arena.string({s})"),
    FD.TYPE_BYTES: ("[UInt8]", "[]", "ProtoCodec.bytes({c})", "arena.bytes({s})"),
}


def snake_words(name):
    return [w for w in name.split("_") if w]


def lower_camel(name):
    words = snake_words(name)
    if not words:
        return name
    text = words[0].lower() + "".join(INITIALISMS.get(w.lower(), w[:1].upper() + w[1:].lower()) for w in words[1:])
    return f"`{text}`" if text in SWIFT_KEYWORDS else text


def bare(identifier):
    return identifier.strip("`")


def upper_camel(name):
    return "".join(w[:1].upper() + w[1:] for w in snake_words(name))


def c_snake(type_name):
    """protoc-c's lower-case name of a message: FetchAssetsRequest → fetch_assets_request."""
    return re.sub(r"(?<!^)(?=[A-Z])", "_", type_name).lower()


def c_upper(type_name):
    return c_snake(type_name).upper()


def upper_snake_of(type_name):
    """MediaType → MEDIA_TYPE (the prefix of its values)."""
    return re.sub(r"(?<=[a-z0-9])(?=[A-Z])", "_", type_name).upper()


class Comments:
    def __init__(self, file):
        self.by_path = {}
        for location in file.source_code_info.location:
            self.by_path[tuple(location.path)] = location.leading_comments

    def doc(self, path, fallback, indent):
        text = self.by_path.get(tuple(path), "").strip("\n")
        lines = [line.strip() for line in text.split("\n")] if text.strip() else [fallback]
        return "".join(f"{indent}/// {line}".rstrip() + "\n" for line in lines)


def short_name(type_name):
    prefix = "." + PACKAGE + "."
    if not type_name.startswith(prefix):
        sys.exit(f"type {type_name} is outside package {PACKAGE}")
    name = type_name[len(prefix):]
    if "." in name:
        sys.exit(f"nested type {type_name}: the generator handles top-level types only")
    return name


def swift_field_type(field):
    if field.type == FD.TYPE_MESSAGE or field.type == FD.TYPE_ENUM:
        base = f"{NAMESPACE}.{short_name(field.type_name)}"
        default = f"{base}()" if field.type == FD.TYPE_MESSAGE else f".init(rawValue: 0)"
    elif field.type in SCALARS:
        base, default = SCALARS[field.type][0], SCALARS[field.type][1]
    else:
        sys.exit(f"field {field.name}: unsupported type {field.type}")
    return base, default


def is_repeated(field):
    return field.label == FD.LABEL_REPEATED


def in_oneof(field):
    return field.HasField("oneof_index") and not field.proto3_optional


def emit_enum(out, enum, path, comments):
    name = enum.name
    prefix = upper_snake_of(name) + "_"
    cases = []
    for value in enum.value:
        if not value.name.startswith(prefix):
            sys.exit(f"enum value {value.name} does not start with {prefix}")
        cases.append((lower_camel(value.name[len(prefix):]), value.number, value.name))
    out.append(comments.doc(path, f"`{PACKAGE}.{name}`.", "    "))
    out.append(f"    public enum {name}: WireEnum, CustomStringConvertible {{\n")
    for index, (case, number, proto_name) in enumerate(cases):
        out.append(comments.doc(path + [2, index], f"`{proto_name}` ({number}).", "        "))
        out.append(f"        case {case}\n")
    out.append("        /// A value this version of the protocol does not know (proto3 enums are open).\n")
    out.append("        case unrecognized(Int32)\n\n")
    out.append("        /// The value with wire number `rawValue`.\n")
    out.append("        public init(rawValue: Int32) {\n            switch rawValue {\n")
    for case, number, _ in cases:
        out.append(f"            case {number}: self = .{bare(case)}\n")
    out.append("            default: self = .unrecognized(rawValue)\n            }\n        }\n\n")
    out.append("        /// The wire number.\n")
    out.append("        public var rawValue: Int32 {\n            switch self {\n")
    for case, number, _ in cases:
        out.append(f"            case .{bare(case)}: return {number}\n")
    out.append("            case .unrecognized(let value): return value\n            }\n        }\n\n")
    out.append("        /// Every value the protocol defines, in declaration order.\n")
    out.append("        public static let knownCases: [Self] = [" + ", ".join(f".{bare(c)}" for c, _, _ in cases) + "]\n\n")
    out.append("        /// The value's name in the .proto file (or its number when unrecognized).\n")
    out.append("        public var description: String {\n            switch self {\n")
    for case, _, proto_name in cases:
        out.append(f"            case .{bare(case)}: return \"{proto_name}\"\n")
    out.append("            case .unrecognized(let value): return \"\\(value)\"\n            }\n        }\n    }\n\n")


def emit_message(out, codec, message, path, comments):
    name = message.name
    fields = list(message.field)
    oneofs = [o.name for o in message.oneof_decl]
    members = []  # (swift name, swift type, default, doc)
    emitted_oneofs = set()
    for index, field in enumerate(fields):
        doc = comments.doc(path + [2, index], f"`{field.name}` (field {field.number}).", "        ")
        if in_oneof(field):
            oneof = oneofs[field.oneof_index]
            if oneof in emitted_oneofs:
                continue
            emitted_oneofs.add(oneof)
            oneof_doc = comments.doc(path + [8, field.oneof_index], f"The `{oneof}` oneof (absent: not set).", "        ")
            members.append((lower_camel(oneof), f"{upper_camel(oneof)}?", "nil", oneof_doc))
            continue
        base, default = swift_field_type(field)
        if is_repeated(field):
            members.append((lower_camel(field.name), f"[{base}]", "[]", doc))
        elif field.type == FD.TYPE_MESSAGE:
            members.append((lower_camel(field.name), f"{base}?", "nil", doc))
        else:
            members.append((lower_camel(field.name), base, default, doc))

    out.append(comments.doc(path, f"`{PACKAGE}.{name}`.", "    "))
    out.append(f"    public struct {name}: Hashable, Sendable {{\n")
    for swift, type_, _, doc in members:
        out.append(doc)
        out.append(f"        public var {swift}: {type_}\n")
    for oneof_index, oneof in enumerate(oneofs):
        out.append(f"\n        /// The cases of the `{oneof}` oneof.\n")
        out.append(f"        public enum {upper_camel(oneof)}: Hashable, Sendable {{\n")
        for index, field in enumerate(fields):
            if not in_oneof(field) or field.oneof_index != oneof_index:
                continue
            base, _ = swift_field_type(field)
            out.append(comments.doc(path + [2, index], f"`{field.name}` (field {field.number}).", "            "))
            out.append(f"            case {lower_camel(field.name)}({base})\n")
        out.append("        }\n")
    if members:
        params = ", ".join(f"{bare(s)}: {t} = {d}" for s, t, d, _ in members)
        out.append(f"\n        /// A message with the given fields (every field defaults to its proto3 default).\n")
        out.append(f"        public init({params}) {{\n")
        for swift, _, _, _ in members:
            out.append(f"            self.{bare(swift)} = {bare(swift)}\n")
        out.append("        }\n")
    else:
        out.append("\n        /// The message (it has no fields).\n        public init() {}\n")
    out.append("    }\n\n")

    # The codec: C struct ⇄ value, and WireMessage.
    ctype = C_PREFIX + name
    fn = FN_PREFIX + c_snake(name)
    reads, writes = [], []
    for field in fields:
        if in_oneof(field):
            continue
        swift, c = lower_camel(field.name), field.name
        reads.append(f"        {swift} = {read_expr(field, f'c.{c}', f'c.n_{c}')}\n")
        writes.extend(write_lines(field, swift, c))
    for oneof_index, oneof in enumerate(oneofs):
        swift = lower_camel(oneof)
        upper = f"PHOTOLIB__V1__{c_upper(name)}__{oneof.upper()}"
        members_of = [(i, f) for i, f in enumerate(fields) if in_oneof(f) and f.oneof_index == oneof_index]
        reads.append(f"        switch c.{oneof}_case {{\n")
        for _, field in members_of:
            case_const = f"{upper}_{field.name.upper()}"
            reads.append(f"        case {case_const}: {swift} = .{bare(lower_camel(field.name))}({oneof_read_expr(field, f'c.{field.name}')})\n")
        reads.append("        default: break\n        }\n")
        writes.append(f"        switch {swift} {{\n")
        for _, field in members_of:
            case_const = f"{upper}_{field.name.upper()}"
            writes.append(f"        case .{bare(lower_camel(field.name))}(let value)?:\n")
            writes.append(f"            m.{oneof}_case = {case_const}\n")
            writes.append(f"            m.{field.name} = {oneof_write_expr(field, 'value')}\n")
        writes.append("        case nil: break\n        }\n")

    codec.append(f"extension {NAMESPACE}.{name}: WireMessage {{\n")
    codec.append(f"    /// Decodes and checks a `{PACKAGE}.{name}` payload (malformed protobuf or bad text: `invalidArgument`).\n")
    codec.append("    public init(decoding bytes: [UInt8]) throws(PhotoLibError) {\n")
    codec.append(f"        self = try ProtoCodec.decode(bytes, \"{name}\", {fn}__unpack, {fn}__free_unpacked) {{ {NAMESPACE}.{name}($0.pointee) }}\n")
    codec.append("    }\n\n")
    codec.append(f"    /// Encodes the message as a `{PACKAGE}.{name}` payload.\n")
    codec.append("    public func encoded() -> [UInt8] {\n")
    codec.append("        let arena = ProtoArena()\n")
    codec.append("        var m = c(arena: arena)\n")
    codec.append(f"        return ProtoCodec.pack(&m, {fn}__get_packed_size, {fn}__pack)\n")
    codec.append("    }\n\n")
    codec.append("    /// The value of a decoded C struct.\n")
    codec.append(f"    init(_ c: {ctype}) {{\n")
    codec.append("        self.init()\n")
    codec.extend(reads)
    codec.append("    }\n\n")
    codec.append("    /// The C struct for packing; its pointers live as long as `arena`.\n")
    arena_param = "arena" if any("arena" in w for w in writes) else "arena _"
    codec.append(f"    func c({arena_param}: ProtoArena) -> {ctype} {{\n")
    codec.append(f"        var m = {ctype}()\n")
    codec.append(f"        {fn}__init(&m)\n")
    codec.extend(writes)
    codec.append("        return m\n    }\n}\n\n")


def enum_from_c(expr):
    return f".init(rawValue: Int32(truncatingIfNeeded: {expr}.rawValue))"


def enum_to_c(expr):
    return f".init(rawValue: .init(truncatingIfNeeded: {expr}.rawValue))"


def read_expr(field, c, n):
    if is_repeated(field):
        if field.type == FD.TYPE_MESSAGE:
            t = f"{NAMESPACE}.{short_name(field.type_name)}"
            return f"ProtoCodec.messages({n}, {c}) {{ {t}($0.pointee) }}"
        if field.type == FD.TYPE_STRING:
            return f"ProtoCodec.strings({n}, {c})"
        if field.type == FD.TYPE_ENUM:
            return f"ProtoCodec.array({n}, {c}).map {{ {enum_from_c('$0')} }}"
        if field.type == FD.TYPE_BOOL:
            return f"ProtoCodec.array({n}, {c}).map {{ $0 != 0 }}"
        if field.type == FD.TYPE_BYTES:
            sys.exit(f"repeated bytes field {field.name} is not supported")
        return f"ProtoCodec.array({n}, {c})"
    if field.type == FD.TYPE_MESSAGE:
        t = f"{NAMESPACE}.{short_name(field.type_name)}"
        return f"{c}.map {{ {t}($0.pointee) }}"
    if field.type == FD.TYPE_ENUM:
        return enum_from_c(c)
    return SCALARS[field.type][2].format(c=c)


def write_lines(field, swift, c):
    s = f"{bare(swift)}"
    if is_repeated(field):
        if field.type == FD.TYPE_MESSAGE:
            value = f"arena.objects({s}.map {{ $0.c(arena: arena) }})"
        elif field.type == FD.TYPE_STRING:
            value = f"arena.strings({s})"
        elif field.type == FD.TYPE_ENUM:
            value = f"arena.array({s}.map {{ {enum_to_c('$0')} }})"
        elif field.type == FD.TYPE_BOOL:
            value = f"arena.array({s}.map {{ $0 ? 1 : 0 }})"
        else:
            value = f"arena.array({s})"
        return [f"        if !{s}.isEmpty {{ (m.n_{c}, m.{c}) = {value} }}\n"]
    if field.type == FD.TYPE_MESSAGE:
        return [f"        if let value = {s} {{ m.{c} = arena.object(value.c(arena: arena)) }}\n"]
    if field.type == FD.TYPE_ENUM:
        return [f"        m.{c} = {enum_to_c(s)}\n"]
    if field.type in (FD.TYPE_STRING, FD.TYPE_BYTES):
        return [f"        if !{s}.isEmpty {{ m.{c} = {SCALARS[field.type][3].format(s=s)} }}\n"]
    return [f"        m.{c} = {SCALARS[field.type][3].format(s=s)}\n"]


def oneof_read_expr(field, c):
    if field.type == FD.TYPE_MESSAGE:
        t = f"{NAMESPACE}.{short_name(field.type_name)}"
        return f"{c}.map {{ {t}($0.pointee) }} ?? {t}()"
    if field.type == FD.TYPE_ENUM:
        return enum_from_c(c)
    return SCALARS[field.type][2].format(c=c)


def oneof_write_expr(field, s):
    if field.type == FD.TYPE_MESSAGE:
        return f"arena.object({s}.c(arena: arena))"
    if field.type == FD.TYPE_ENUM:
        return enum_to_c(s)
    if field.type == FD.TYPE_STRING:
        return f"arena.string({s})"
    return SCALARS[field.type][3].format(s=s)


SHAPES = {
    (False, False): "Unary",
    (False, True): "ServerStreaming",
    (True, False): "ClientStreaming",
    (True, True): "Bidirectional",
}


def emit_service(out, service, path, comments):
    out.append(comments.doc(path, f"The methods of `service {service.name}`.", ""))
    out.append(f"public enum {service.name}Methods {{\n")
    out.append(f"    /// The service's full name.\n    public static let serviceName = \"{PACKAGE}.{service.name}\"\n\n")
    names = []
    for index, method in enumerate(service.method):
        shape = SHAPES[(method.client_streaming, method.server_streaming)]
        request = f"{NAMESPACE}.{short_name(method.input_type)}"
        response = f"{NAMESPACE}.{short_name(method.output_type)}"
        swift = method.name[:1].lower() + method.name[1:]
        names.append(swift)
        out.append(comments.doc(path + [2, index], f"`{method.name}`.", "    "))
        out.append(f"    public static let {swift} = MethodDescriptor<{request}, {response}, CallKinds.{shape}>(\"{method.name}\")\n")
    out.append("\n    /// Every method, in the order of the .proto file.\n")
    out.append("    public static let all: [MethodInfo] = [\n")
    for swift in names:
        out.append(f"        {swift}.info,\n")
    out.append("    ]\n\n")
    out.append("    /// The method with wire name `path`, if any.\n")
    out.append("    public static func method(path: String) -> MethodInfo? {\n")
    out.append("        all.first { $0.path == path }\n    }\n}\n")


HEADER = """// Generated by Scripts/protoc-gen-swift-codecs.py from Protos/{proto}. Do not edit:
// change the .proto file and run Scripts/generate-protos.
"""


def generate(file):
    if file.package != PACKAGE:
        sys.exit(f"{file.name}: package {file.package}, expected {PACKAGE}")
    comments = Comments(file)
    types, codec = [], []
    for index, enum in enumerate(file.enum_type):
        emit_enum(types, enum, [5, index], comments)
    for index, message in enumerate(file.message_type):
        if message.nested_type or message.enum_type:
            sys.exit(f"{message.name}: nested types are not supported")
        emit_message(types, codec, message, [4, index], comments)
    service = []
    for index, svc in enumerate(file.service):
        emit_service(service, svc, [6, index], comments)

    text = HEADER.format(proto=file.name)
    if codec:
        text += "internal import CPhotoLibProto\n"
    text += "import PhotoLibCore\n\n"
    if types:
        text += f"extension {NAMESPACE} {{\n" + "".join(types).rstrip("\n") + "\n}\n\n"
    text += "".join(codec)
    text += "".join(service)
    return text.rstrip("\n") + "\n"


def main():
    if len(sys.argv) != 3:
        sys.exit("usage: protoc-gen-swift-codecs.py DESCRIPTOR_SET OUTPUT_DIR")
    files = pb.FileDescriptorSet()
    with open(sys.argv[1], "rb") as handle:
        files.ParseFromString(handle.read())
    os.makedirs(sys.argv[2], exist_ok=True)
    for file in files.file:
        base = os.path.splitext(os.path.basename(file.name))[0]
        with open(os.path.join(sys.argv[2], f"{base}.pb.swift"), "w") as handle:
            handle.write(generate(file))


if __name__ == "__main__":
    main()
