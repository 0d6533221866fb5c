package teamstore

import (
	"crypto/sha1"
	"encoding/hex"
	"strconv"
)

// namespace is Cairn's UUIDv5 namespace: UUIDv5 of the URL namespace and
// "cairn:teamstore", fixed so that every Cairn derives the same ids.
var namespace = uuid5(urlNamespace, "cairn:teamstore")

// urlNamespace is RFC 9562's namespace for URLs.
var urlNamespace = [16]byte{0x6b, 0xa7, 0xb8, 0x11, 0x9d, 0xad, 0x11, 0xd1, 0x80, 0xb4, 0x00, 0xc0, 0x4f, 0xd4, 0x30, 0xc8}

// uuid5 is RFC 9562's name-based UUID (SHA-1).
func uuid5(ns [16]byte, name string) [16]byte {
	h := sha1.New()
	h.Write(ns[:])
	h.Write([]byte(name))
	var u [16]byte
	copy(u[:], h.Sum(nil))
	u[6] = u[6]&0x0f | 0x50 // version 5
	u[8] = u[8]&0x3f | 0x80 // RFC variant
	return u
}

func uuidString(u [16]byte) string {
	var b [36]byte
	hex.Encode(b[0:8], u[0:4])
	b[8] = '-'
	hex.Encode(b[9:13], u[4:6])
	b[13] = '-'
	hex.Encode(b[14:18], u[6:8])
	b[18] = '-'
	hex.Encode(b[19:23], u[8:10])
	b[23] = '-'
	hex.Encode(b[24:], u[10:])
	return string(b[:])
}

// The names hashed into ids join their parts with NUL, which no path
// holds, so ("a", "b/c") and ("a/b", "c") differ.

// ChunkID is the object id of a document's chunk: the same on every
// machine and every run.
func ChunkID(folder, path string, ordinal int) string {
	return uuidString(uuid5(namespace, "chunk\x00"+folder+"\x00"+path+"\x00"+strconv.Itoa(ordinal)))
}

// DocumentID is the object id of a document's fingerprint.
func DocumentID(folder, path string) string {
	return uuidString(uuid5(namespace, "document\x00"+folder+"\x00"+path))
}

// leaseID is the object id of a folder's indexer lease.
func leaseID(folder string) string {
	return uuidString(uuid5(namespace, "lease\x00"+folder))
}
