#!/usr/bin/env bash
# Makes the certificates of tests/e2e/upstream-tls.test.ts (committed, so the suite needs no openssl):
#   ca            a private root CA (trusted by the tests through NODE_EXTRA_CA_CERTS)
#   good          127.0.0.1 and localhost, signed by ca, serverAuth
#   other-host    DNS:other.test only, signed by ca
#   expired       127.0.0.1, signed by ca, valid for one day in 2020
#   client-only   127.0.0.1, signed by ca, extendedKeyUsage clientAuth only
#   not-a-ca      a certificate signed by ca with CA:FALSE, and not-a-ca-leaf (127.0.0.1) signed by it
#   intermediate  the control for not-a-ca: a real intermediate CA signed by ca, and intermediate-leaf signed by it
#   self-signed   127.0.0.1, signed by its own key
# Everything but `expired` is valid for 100 years. Run from the repository root: scripts/tls-fixtures.sh
set -euo pipefail
out=tests/chat/fixtures/tls
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$out"
key() { openssl genpkey -algorithm EC -pkeyopt ec_paramgen_curve:P-256 -out "$out/$1.key" 2>/dev/null; }
ext() { # name → an extension file for a leaf
  printf 'basicConstraints=critical,CA:FALSE\nkeyUsage=critical,digitalSignature\nsubjectAltName=%s\nextendedKeyUsage=%s\n' "$2" "$3" >"$work/$1.ext"
}
# The CA, with `openssl ca` bookkeeping so that certificates can be dated in the past.
key ca
openssl req -x509 -new -key "$out/ca.key" -subj /CN=trellis-test-ca -days 36500 \
  -addext basicConstraints=critical,CA:TRUE -addext keyUsage=critical,keyCertSign,cRLSign -out "$out/ca.crt"
mkdir -p "$work/db" && touch "$work/db/index" && echo 1000 >"$work/db/serial"
cat >"$work/ca.cnf" <<CNF
[ca]
default_ca = test
[test]
database = $work/db/index
serial = $work/db/serial
new_certs_dir = $work/db
default_md = sha256
policy = any
copy_extensions = none
unique_subject = no
[any]
commonName = supplied
CNF
sign() { # name issuer ext-file [startdate enddate]
  openssl req -new -key "$out/$1.key" -subj "/CN=$1" -out "$work/$1.csr"
  local dates=(-days 36500)
  [ $# -ge 5 ] && dates=(-startdate "$4" -enddate "$5")
  openssl ca -batch -config "$work/ca.cnf" -cert "$out/$2.crt" -keyfile "$out/$2.key" -extfile "$3" \
    "${dates[@]}" -in "$work/$1.csr" -out "$out/$1.crt" 2>/dev/null
  openssl x509 -in "$out/$1.crt" -out "$out/$1.crt" # PEM only, without openssl ca's text dump
}
for name in good other-host expired client-only not-a-ca not-a-ca-leaf; do key "$name"; done
ext good 'IP:127.0.0.1,DNS:localhost' serverAuth
ext other-host 'DNS:other.test' serverAuth
ext client-only 'IP:127.0.0.1,DNS:localhost' clientAuth
sign good ca "$work/good.ext"
sign other-host ca "$work/other-host.ext"
sign expired ca "$work/good.ext" 20200101000000Z 20200102000000Z
sign client-only ca "$work/client-only.ext"
# An ordinary end-entity certificate (CA:FALSE) that nonetheless signs another.
ext not-a-ca 'DNS:not-a-ca.test' serverAuth
sign not-a-ca ca "$work/not-a-ca.ext"
sign not-a-ca-leaf not-a-ca "$work/good.ext"
key intermediate
key intermediate-leaf
printf 'basicConstraints=critical,CA:TRUE,pathlen:0\nkeyUsage=critical,keyCertSign,cRLSign\n' >"$work/intermediate.ext"
sign intermediate ca "$work/intermediate.ext"
sign intermediate-leaf intermediate "$work/good.ext"
key self-signed
openssl req -x509 -new -key "$out/self-signed.key" -subj /CN=self-signed -days 36500 \
  -addext subjectAltName=IP:127.0.0.1,DNS:localhost -out "$out/self-signed.crt"
echo "wrote $(ls "$out" | wc -l) files to $out"
