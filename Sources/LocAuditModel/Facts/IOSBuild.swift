import Foundation

/// The iOS version of a build number (`20A362` is iOS 16.0), for logs that name the build
/// and not the version (a sysdiagnose's name: `sysdiagnose_…_iPhone-OS_iPhone_20A362.tar.gz`).
///
/// The major version is exact: the build's train (its two digits) minus 4 for trains 11 to
/// 22 (iOS 7 to 18), and train 23 is iOS 26 (Apple's renumbering). The minor version is
/// exact for the builds of `known`; for the others it is read from the letter (`A` = .0,
/// `B` = .1, ...), which holds for most releases since iOS 15 but not for all (iOS 13.1 is
/// `17A844`, 14.1 `18A8395`, 12.2 `16E227`): approximate, and said so.
package enum IOSBuild {
    /// Builds whose version is known exactly (release builds of Apple's tables).
    static let known: [String: String] = [
        "11A465": "7.0", "11D167": "7.1", "11D257": "7.1.2", "12A365": "8.0", "12H143": "8.4",
        "13A344": "9.0", "13G36": "9.3.5", "14A403": "10.0.1", "14G60": "10.3.3", "15A372": "11.0", "15G77": "11.4.1",
        "16A366": "12.0", "16B92": "12.1", "16E227": "12.2", "16F156": "12.3", "16G77": "12.4", "16H81": "12.5.7",
        "17A577": "13.0", "17A844": "13.1", "17B84": "13.2", "17C54": "13.3", "17E255": "13.4", "17F75": "13.5",
        "17G68": "13.6", "17H35": "13.7",
        "18A373": "14.0", "18A8395": "14.1", "18B92": "14.2", "18C66": "14.3", "18D52": "14.4", "18E199": "14.5",
        "18F72": "14.6", "18G69": "14.7", "18H17": "14.8",
        "19A346": "15.0", "19B74": "15.1", "19C56": "15.2", "19D50": "15.3", "19E241": "15.4", "19F77": "15.5",
        "19G71": "15.6", "19H12": "15.7",
        "20A362": "16.0", "20B82": "16.1", "20C65": "16.2", "20D47": "16.3", "20E247": "16.4", "20F66": "16.5",
        "20G75": "16.6", "20H19": "16.7",
        "21A329": "17.0", "21B80": "17.1", "21C62": "17.2", "21D50": "17.3", "21E219": "17.4", "21F79": "17.5",
        "21F90": "17.5.1", "21G80": "17.6", "21H16": "17.7",
        "22A3354": "18.0", "22B83": "18.1", "22C152": "18.2", "22D63": "18.3", "22E240": "18.4", "22F76": "18.5",
        "22G86": "18.6", "23A341": "26.0", "23B85": "26.1",
    ]

    /// The version of a build, and whether it is exact; nil for what is not an iOS build.
    package static func version(build: String) -> (version: String, exact: Bool)? {
        if let v = known[build] { return (v, true) }
        let chars = Array(build.utf8)
        guard chars.count >= 4, chars.count <= 10, let train = Int(String(decoding: chars[0..<2], as: UTF8.self)),
              (11...23).contains(train), chars[2] >= UInt8(ascii: "A"), chars[2] <= UInt8(ascii: "Z"),
              chars[3...].allSatisfy({ ($0 >= 48 && $0 <= 57) || ($0 >= 97 && $0 <= 122) }) else { return nil }
        let major = train == 23 ? 26 : train - 4
        return ("\(major).\(Int(chars[2] - UInt8(ascii: "A")))", false)
    }

    /// The build in a sysdiagnose's name (`…_iPhone-OS_iPhone_20A362…`).
    package static func build(inName path: String) -> String? {
        let name = (path as NSString).lastPathComponent
        guard let regex = try? NSRegularExpression(pattern: "OS_[A-Za-z0-9,]+_([0-9]{2}[A-Z][0-9]{1,5}[a-z]?)(?![0-9A-Za-z])"),
              let match = regex.firstMatch(in: name, range: NSRange(name.startIndex..., in: name)),
              let range = Range(match.range(at: 1), in: name) else { return nil }
        return String(name[range])
    }
}
