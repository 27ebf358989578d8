# Part of the Sinter project.
"""Reading and verifying an artifact directory's manifest.

The format is defined once, in manifest_schema.json beside this file (the
C++ writers and the runtime are compiled from the same file): which keys
each object has and of which type, the enum values, the dtypes and their
sizes, the format versions and the file names. An artifact records the
SHA-256 of its manifest and kernels in SHA256SUMS; every file is verified
against it before it is parsed or loaded, so a corrupt, truncated or
mismatched artifact is refused with a LoadError, never run.
"""

import hashlib
import json
import os

from .errors import LoadError

with open(os.path.join(os.path.dirname(os.path.abspath(__file__)),
                       "manifest_schema.json")) as _f:
    SCHEMA = json.load(_f)

MANIFEST_FILE = SCHEMA["manifest_file"]
CHECKSUM_FILE = SCHEMA["checksum_file"]
CPU_SYMBOL_PREFIX = SCHEMA["cpu_symbol_prefix"]
CPU_MANIFEST_DIGEST_SYMBOL = SCHEMA["cpu_manifest_digest_symbol"]
CPU_FORMAT_VERSION = SCHEMA["format_versions"]["cpu"]
CUDA_FORMAT_VERSION = SCHEMA["format_versions"]["cuda"]
#: dtype name -> bytes per element.
DTYPE_BYTES = {name: d["bytes"] for name, d in SCHEMA["dtypes"].items()}

_ENUMS = dict(SCHEMA["enums"], dtype=list(SCHEMA["dtypes"]))
_HEX = set("0123456789abcdef")


def _is_int(value):
    return isinstance(value, int) and not isinstance(value, bool)


def is_plain_file_name(name):
    """Whether `name` names a file of the artifact directory itself."""
    return (isinstance(name, str) and name not in ("", ".", "..")
            and "/" not in name and "\0" not in name)


def _check_value(value, type_name, path):
    """Checks one value of a field (an element, for arrays)."""
    if type_name in _ENUMS:
        values = _ENUMS[type_name]
        if value not in values or not isinstance(value, str):
            raise LoadError("%s: expected one of %s, got %s"
                            % (path, ", ".join('"%s"' % v for v in values),
                               json.dumps(value)))
        return
    if type_name in SCHEMA["objects"]:
        conform(value, type_name, path)
        return
    ok = {
        "string": lambda v: isinstance(v, str),
        "file": is_plain_file_name,
        "bool": lambda v: isinstance(v, bool),
        "number": lambda v: (_is_int(v) or isinstance(v, float)),
        "integer": _is_int,
        "count": lambda v: _is_int(v) and v >= 0,
        "object": lambda v: isinstance(v, dict),
    }[type_name](value)
    if not ok:
        expected = {"string": "a string", "bool": "true or false",
                    "file": "the name of a file in the artifact directory "
                            "(no '/')",
                    "number": "a number", "integer": "an integer",
                    "count": "an integer >= 0", "object": "an object"}
        raise LoadError("%s: expected %s, got %s"
                        % (path, expected[type_name], json.dumps(value)))


def conform(value, object_name, path):
    """Checks `value`, at `path` of the manifest, against the schema's
    object `object_name`: every required key present, no other key, each
    value of its type. Raises LoadError naming the field."""
    fields = SCHEMA["objects"][object_name]
    where = path or "the manifest"
    if not isinstance(value, dict):
        raise LoadError("%s: expected an object (%s), got %s"
                        % (where, object_name, type(value).__name__
                           if value is not None else "null"))
    known = {k.rstrip("?") for k in fields}
    for key in value:
        if key not in known:
            raise LoadError("%s: unknown key (not a field of %s)"
                            % (_join(path, key), object_name))
    for spec, type_name in fields.items():
        key = spec.rstrip("?")
        if key not in value:
            if spec.endswith("?"):
                continue
            raise LoadError('%s: missing key "%s"' % (where, key))
        field_path = _join(path, key)
        if not type_name.endswith("[]"):
            _check_value(value[key], type_name, field_path)
            continue
        if not isinstance(value[key], list):
            raise LoadError("%s: expected an array" % field_path)
        for i, element in enumerate(value[key]):
            _check_value(element, type_name[:-2], "%s[%d]" % (field_path, i))


def _join(path, key):
    return "%s.%s" % (path, key) if path else key


def _no_duplicate_keys(pairs):
    result = {}
    for key, value in pairs:
        if key in result:
            raise ValueError('a second member "%s" in one object' % key)
        result[key] = value
    return result


def _reject_constant(name):
    raise ValueError("%s is not JSON" % name)


def _read(path):
    with open(path, "rb") as f:
        return f.read()


def parse_checksums(text, where):
    """SHA256SUMS text -> {file name: hex digest}."""
    digests = {}
    lines = text.split("\n")
    if lines[-1] == "":
        lines.pop()  # the newline that ends the last line
    for number, line in enumerate(lines, 1):
        prefix = "%s line %d: " % (where, number)
        digest, sep, name = line[:64], line[64:66], line[66:]
        if len(line) < 67 or sep != "  " or not set(digest) <= _HEX:
            raise LoadError(prefix + "expected '<64 lowercase hex digits>  "
                            "<file name>'")
        if not is_plain_file_name(name):
            raise LoadError(prefix + "%r is not a file of the artifact "
                            "directory" % name)
        if name in digests:
            raise LoadError(prefix + "a second digest for " + name)
        digests[name] = digest
    return digests


def verify(directory, digests, name, data):
    """Raises LoadError unless `data`, the contents of `name`, match its
    digest in SHA256SUMS."""
    if name not in digests:
        raise LoadError("%s: %s has no digest for %s"
                        % (directory, CHECKSUM_FILE, name))
    actual = hashlib.sha256(data).hexdigest()
    if actual != digests[name]:
        raise LoadError(
            "%s: %s does not match its SHA-256 in %s (%d bytes with digest "
            "%s, recorded %s): the artifact is corrupt, truncated or was "
            "modified after it was compiled"
            % (directory, name, CHECKSUM_FILE, len(data), actual,
               digests[name]))


def read_verified(directory, digests, name):
    """The bytes of file `name` of the artifact, verified."""
    path = os.path.join(directory, name)
    try:
        data = _read(path)
    except OSError as e:
        raise LoadError("cannot read %s: %s" % (path, e.strerror)) from None
    verify(directory, digests, name, data)
    return data


def read_manifest(directory):
    """Reads `directory`'s manifest.json, verified against SHA256SUMS, as a
    dict of this package's format (any target); returns (manifest,
    digests)."""
    path = os.path.join(directory, MANIFEST_FILE)
    try:
        text = _read(path)
    except FileNotFoundError:
        raise LoadError("%s has no %s: not a Sinter artifact directory"
                        % (directory, MANIFEST_FILE)) from None
    except OSError as e:
        raise LoadError("cannot read %s: %s" % (path, e.strerror)) from None
    # A corrupt manifest is reported as such, before it is parsed.
    digests = None
    try:
        sums = _read(os.path.join(directory, CHECKSUM_FILE))
    except OSError:
        sums = None
    if sums is not None:
        digests = parse_checksums(sums.decode("utf-8", "replace"),
                                  os.path.join(directory, CHECKSUM_FILE))
        verify(directory, digests, MANIFEST_FILE, text)
    try:
        manifest = json.loads(text.decode("utf-8"),
                              object_pairs_hook=_no_duplicate_keys,
                              parse_constant=_reject_constant)
    except (UnicodeDecodeError, ValueError) as e:
        raise LoadError("%s: %s" % (path, e)) from None
    if not isinstance(manifest, dict):
        raise LoadError("%s: expected a JSON object, got %s"
                        % (path, "null" if manifest is None
                           else type(manifest).__name__))
    target = manifest.get("target")
    version = manifest.get("format_version")
    expected = (CUDA_FORMAT_VERSION if isinstance(target, str)
                and target.startswith("cuda") else CPU_FORMAT_VERSION)
    if not _is_int(version) or version != expected:
        raise LoadError(
            "%s: manifest format %s is not supported (this package reads "
            "format %d for target %s; recompile the artifact with this "
            "version of sinterc)" % (path, json.dumps(version), expected,
                                     json.dumps(target)))
    if digests is None:
        raise LoadError("%s has no %s: an artifact records the SHA-256 of "
                        "its files there (the directory is incomplete)"
                        % (directory, CHECKSUM_FILE))
    return manifest, digests


def check(manifest, object_name, manifest_path):
    """Checks `manifest` against the schema's `object_name` and its
    functions for what they mean (check_functions); a LoadError names the
    manifest's path and the field."""
    try:
        conform(manifest, object_name, "")
        check_functions(manifest)
    except LoadError as e:
        raise LoadError("%s: %s" % (manifest_path, e)) from None


def check_functions(manifest):
    """Checks what the functions' entries mean (beyond their types): unique
    names, arguments in order (inputs, then outputs) whose bytes are their
    shape's, "alias_of" naming an input of the same size."""
    names = set()
    for i, function in enumerate(manifest["functions"]):
        path = "functions[%d]" % i
        if function["name"] in names:
            raise LoadError("%s.name: a second function named %r"
                            % (path, function["name"]))
        names.add(function["name"])
        seen_output = False
        inputs = {}
        for j, arg in enumerate(function["arguments"]):
            where = "%s.arguments[%d]" % (path, j)
            check_buffer(arg, where)
            if arg["index"] != j:
                raise LoadError("%s.index: %d, expected its position %d"
                                % (where, arg["index"], j))
            if arg["role"] == "input":
                if seen_output:
                    raise LoadError("%s.role: an input after an output"
                                    % where)
                inputs[arg["name"]] = arg
            seen_output |= arg["role"] == "output"
            alias = arg.get("alias_of")
            if alias is not None:
                source = inputs.get(alias)
                if (arg["role"] != "output" or source is None
                        or source["kind"] != "buffer"
                        or source["dtype"] != arg["dtype"]
                        or source["bytes"] != arg["bytes"]):
                    raise LoadError("%s.alias_of: %r is not an input buffer "
                                    "of the output's dtype and size"
                                    % (where, alias))


def check_buffer(entry, where):
    """A buffer's (argument's or temp's) bytes are its dtype's times its
    shape's; a scalar has shape []."""
    if entry["kind"] == "scalar" and entry["shape"]:
        raise LoadError("%s.shape: a scalar has shape []" % where)
    size = DTYPE_BYTES[entry["dtype"]]
    for d in entry["shape"]:
        size *= d
    if entry["bytes"] != size:
        raise LoadError("%s.bytes: %d, but its shape and dtype make %d"
                        % (where, entry["bytes"], size))
