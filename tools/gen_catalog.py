#!/usr/bin/env python3
"""Generate core/src/catalog/aws_data.rs and aws_data.bin from the AWS instance-type facts.

Inputs: ../shared/data/aws/instance-types.json (see its README: the instance-type facts and the
us-east-1 on-demand prices) and the AWS provider v1.15.0's generated price tables
(pkg/providers/pricing/zz_generated.pricing_aws{,_cn,_us_gov}.go in the Go module cache, or the
directory given with --pricing), which hold on-demand prices for exactly four regions: us-east-1,
cn-north-1 (in CNY, as the provider reads that region's prices), us-gov-east-1, us-gov-west-1.
Output: a compact binary table that the core embeds (aws_data.bin, format below MAGIC): one string
table (label keys, label values, resource names), the instance types with facts column by column,
and per region its (type index, price) pairs for the types of the region's table that have facts;
aws_data.rs names it and holds each region's currency and zones. The types are stored once and
loading a catalog decodes ~120 kB of varints instead of parsing JSON. A type
without a price in a region is not part of that region's catalog (FORMAT.md §2.1).

us-east-1's prices come from instance-types.json (the same table, generated at
2026-07-20T13:44:30Z); the other regions' from the Go files. Zones: the provider has no zone
data (Karpenter reads them from the EC2NodeClass's subnets), so each region has a fixed list of
three of its public availability zones (REGION_ZONES below), the default a catalog can override.

Capacity (used only for NodePool limits, FORMAT.md §2.1): cpu = instance-cpu label; memory =
instance-memory MiB − ceil(7.5 %) MiB; every other resource = its allocatable value.

Usage: python3 tools/gen_catalog.py [--pricing DIR] [INPUT] [OUTPUT]; `--check` exits 1 if OUTPUT
is stale, and skips (exit 0, saying so) when the price tables are not present (a machine without
the Go module cache: the checked-in OUTPUT is then taken as is).
"""
import json
import math
import os
import re
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
DEFAULT_IN = os.path.join(ROOT, "..", "shared", "data", "aws", "instance-types.json")
DEFAULT_OUT = os.path.join(ROOT, "core", "src", "catalog", "aws_data.rs")
DEFAULT_PRICING = "/root/go/pkg/mod/github.com/aws/karpenter-provider-aws@v1.15.0/pkg/providers/pricing"
PRICING_FILES = ["zz_generated.pricing_aws.go", "zz_generated.pricing_aws_cn.go", "zz_generated.pricing_aws_us_gov.go"]

# Region -> (currency, default zones). The provider converts cn- regions' prices in CNY
# (pricing.go onDemandPage); every other region's in USD. The zones are public AZ names of the
# region (cn-north-1 has no "c" zone), three per region like us-east-1's default.
REGION_ZONES = {
    "us-east-1": ("USD", ["us-east-1a", "us-east-1b", "us-east-1c"]),
    "cn-north-1": ("CNY", ["cn-north-1a", "cn-north-1b", "cn-north-1d"]),
    "us-gov-east-1": ("USD", ["us-gov-east-1a", "us-gov-east-1b", "us-gov-east-1c"]),
    "us-gov-west-1": ("USD", ["us-gov-west-1a", "us-gov-west-1b", "us-gov-west-1c"]),
}

BIN = {"Ki": 2**10, "Mi": 2**20, "Gi": 2**30, "Ti": 2**40, "Pi": 2**50, "Ei": 2**60}
DEC = {"m": -3, "": 0, "k": 3, "M": 6, "G": 9, "T": 12, "P": 15, "E": 18}


def milli(q):
    """Exact Kubernetes quantity -> integer milli-units (the data only uses simple forms)."""
    m = re.fullmatch(r"([0-9]+)([A-Za-z]*)", q)
    if not m:
        raise ValueError(f"unsupported quantity {q!r}")
    n, suf = int(m.group(1)), m.group(2)
    if suf in BIN:
        return n * BIN[suf] * 1000
    e = DEC[suf] + 3
    return n * 10**e if e >= 0 else -(-n // 10 ** (-e))


def rust_str(s):
    return json.dumps(s)  # JSON string escapes are valid Rust string escapes for this data


def read_pricing(directory):
    """{region: {type: price}} and {region: generated-at} of the provider's Go price tables."""
    regions, stamps = {}, {}
    for name in PRICING_FILES:
        text = open(os.path.join(directory, name)).read()
        stamp = re.search(r"// generated at (\S+)", text).group(1)
        current = None
        for line in text.splitlines():
            m = re.fullmatch(r'\t"([a-z0-9-]+)": \{', line)
            if m:
                current = regions.setdefault(m.group(1), {})
                stamps[m.group(1)] = stamp
                continue
            if current is not None and line.startswith("\t\t\""):
                for t, p in re.findall(r'"([^"]+)": ([0-9.]+)', line):
                    current[t] = float(p)
    if sorted(regions) != sorted(REGION_ZONES):
        raise ValueError(f"the price tables hold regions {sorted(regions)}, expected {sorted(REGION_ZONES)}")
    return regions, stamps


# aws_data.bin, the tables the core embeds (`include_bytes!`), decoded by core/src/catalog/aws.rs
# `decode` once per process. Numbers are unsigned LEB128 varints; the layout is column by column
# so that gzip (the wasm package's transfer size) sees long runs of alike values:
#   MAGIC; string count, then each string as (byte length, UTF-8 bytes);
#   type count T; T name string indices;
#   label-key count, then per key: its string index and T cells (0 = no such label, else value
#     string index + 1);
#   resource count, then per resource: its string index and T quantities (below);
#   T capacity cpu quantities; T capacity memory quantities;
#   per region, in REGIONS order: price count P, P gaps between priced type indices (first index,
#     then index - previous - 1), P prices.
# A quantity (integer milli-units, >= 0) is 0 when absent, else (trailing decimal zeros + 1) then
# the integer without them. A price is (decimals, digits): the float is digits / 10^decimals, which
# IEEE division rounds to the same double as parsing the decimal text (both correctly rounded).
MAGIC = b"NCAT\x01"


def uvarint(n):
    if n < 0:
        raise ValueError(f"negative varint {n}")
    out = bytearray()
    while True:
        b = n & 0x7F
        n >>= 7
        if n:
            out.append(b | 0x80)
        else:
            out.append(b)
            return bytes(out)


def quantity(q):
    if q is None:
        return uvarint(0)
    zeros = 0
    while q and q % 10 == 0:
        q //= 10
        zeros += 1
    return uvarint(zeros + 1) + uvarint(q)


def price_bytes(p):
    text = repr(float(p))
    if "e" in text or "." not in text:
        raise ValueError(f"price {p!r} has no plain decimal form")
    whole, _, frac = text.partition(".")
    frac = frac.rstrip("0")
    digits = int(whole + frac)
    if digits >= 2**53 or len(frac) > 22 or digits / 10 ** len(frac) != float(p):
        raise ValueError(f"price {p!r} does not round-trip as digits / 10^decimals")
    return uvarint(len(frac)) + uvarint(digits)


def generate(src, pricing):
    types = json.load(open(src))
    regions, stamps = read_pricing(pricing)
    strings, index = [], {}

    def sid(s):
        if s not in index:
            index[s] = len(strings)
            strings.append(s)
        return index[s]

    records, known = [], {}
    for t in types:
        price = t.get("onDemandPriceUSDPerHour")
        known[t["name"]] = len(records)
        if price is not None and regions["us-east-1"].get(t["name"]) != price:
            raise ValueError(f"{t['name']}: instance-types.json and the Go table disagree on the us-east-1 price")
        labels = sorted((sid(k), sid(v)) for k, v in t["labels"].items())
        alloc = sorted((sid(k), milli(v)) for k, v in t["allocatable"].items())
        mib = t["capacity"]["memoryMiB"]
        cap_cpu = t["capacity"]["vcpu"] * 1000
        cap_mem = (mib - math.ceil(mib * 0.075)) * 2**20 * 1000
        records.append((sid(t["name"]), labels, alloc, cap_cpu, cap_mem))
    # us-east-1: the prices instance-types.json carries (checked equal to the Go table above).
    priced = {"us-east-1": {t["name"]: t["onDemandPriceUSDPerHour"] for t in types if t.get("onDemandPriceUSDPerHour") is not None}}
    for r in REGION_ZONES:
        if r != "us-east-1":
            priced[r] = {n: p for n, p in regions[r].items() if n in known}

    # The blob (FORMAT below), then the Rust file naming it and holding the regions' metadata.
    blob = bytearray(MAGIC)
    blob += uvarint(len(strings))
    for s in strings:
        b = s.encode()
        blob += uvarint(len(b)) + b
    blob += uvarint(len(records))
    for name, _, _, _, _ in records:
        blob += uvarint(name)
    # Columns: one per label key, then one per allocatable resource, in string-index order, so
    # a type's pairs come out sorted by key as the records hold them.
    for column in (1, 2):
        keys = sorted({k for r in records for k, _ in r[column]})
        blob += uvarint(len(keys))
        for key in keys:
            blob += uvarint(key)
            for r in records:
                value = dict(r[column]).get(key)
                if column == 1:
                    blob += uvarint(0 if value is None else value + 1)
                else:
                    blob += quantity(value)
    for r in records:
        blob += quantity(r[3])
    for r in records:
        blob += quantity(r[4])
    out = [
        "// @generated by tools/gen_catalog.py from ../shared/data/aws/instance-types.json.",
        "// Do not edit by hand: run `make catalog`. Facts: Karpenter provider commit 1d92708; regional",
        "// prices: provider v1.15.0 pkg/providers/pricing/zz_generated.pricing_aws*.go, generated at "
        + ", ".join(f"{r} {stamps[r]}" for r in REGION_ZONES) + ".",
        f"// The tables are aws_data.bin ({len(strings)} strings, {len(records)} instance types, "
        + ", ".join(f"{r} {len(priced[r])} prices" for r in REGION_ZONES) + "); its format is in tools/gen_catalog.py.",
        "use super::RawRegion;",
        "",
        'pub(super) static DATA: &[u8] = include_bytes!("aws_data.bin");',
        "",
        f"pub(super) static REGIONS: [RawRegion; {len(REGION_ZONES)}] = [",
    ]
    for r, (currency, zones) in REGION_ZONES.items():
        # In TYPES order, so every region's catalog lists its types in one order.
        pairs = sorted((known[n], p) for n, p in priced[r].items())
        blob += uvarint(len(pairs))
        previous = -1
        for k, _ in pairs:
            blob += uvarint(k - previous - 1)
            previous = k
        for _, p in pairs:
            blob += price_bytes(p)
        zs = ", ".join(rust_str(z) for z in zones)
        out.append(
            f"    RawRegion {{ name: {rust_str(r)}, currency: {rust_str(currency)}, generated_at: {rust_str(stamps[r])}, zones: &[{zs}] }},"
        )
    out.append("];")
    return "\n".join(out) + "\n", bytes(blob)


def main(argv):
    check = "--check" in argv
    args = [a for a in argv if a != "--check"]
    pricing = DEFAULT_PRICING
    if "--pricing" in args:
        i = args.index("--pricing")
        pricing = args[i + 1]
        del args[i : i + 2]
    src = args[0] if len(args) > 0 else DEFAULT_IN
    dst = args[1] if len(args) > 1 else DEFAULT_OUT
    if not all(os.path.exists(os.path.join(pricing, f)) for f in PRICING_FILES):
        if check:
            print(f"the provider's price tables are not in {pricing}: freshness check skipped")
            return 0
        print(f"the provider's price tables are not in {pricing} (--pricing DIR)", file=sys.stderr)
        return 2
    text, blob = generate(src, pricing)
    dst_bin = os.path.splitext(dst)[0] + ".bin"
    if check:
        current = open(dst).read() if os.path.exists(dst) else ""
        current_bin = open(dst_bin, "rb").read() if os.path.exists(dst_bin) else b""
        if current != text or current_bin != blob:
            print(f"{dst} or {dst_bin} is stale: run `make catalog`", file=sys.stderr)
            return 1
        print(f"{dst} and {dst_bin} are up to date")
        return 0
    with open(dst, "w") as f:
        f.write(text)
    with open(dst_bin, "wb") as f:
        f.write(blob)
    print(f"wrote {dst} and {dst_bin}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
