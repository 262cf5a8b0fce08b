import Foundation

// The fuzz build's stand-in for swift-crypto's SHA256 (a package, which swiftc alone cannot
// import): ByteStream hashes what it reads; the fuzzer checks what it inflates.
package struct SHA256 {
    package init() {}
    package mutating func update(bufferPointer: UnsafeRawBufferPointer) {}
    package mutating func update(data: some DataProtocol) {}
    package func finalize() -> [UInt8] { [] }
}
