package io.onlyonce.verify.nemesis;

/**
 * Reads the node out of a TSID (13 Crockford base32 characters: 42 bits of time, then 10 bits of
 * node and 12 of counter when the node is set), the order numbers of the seckill service.
 */
final class Tsids {

    private static final String ALPHABET = "0123456789ABCDEFGHJKMNPQRSTVWXYZ";

    private Tsids() {
    }

    static int node(String tsid) {
        long value = 0;
        for (char c : tsid.toUpperCase(java.util.Locale.ROOT).toCharArray()) {
            int digit = ALPHABET.indexOf(c);
            if (digit < 0) {
                throw new IllegalArgumentException("not a TSID: " + tsid);
            }
            value = (value << 5) | digit;
        }
        return (int) ((value >>> 12) & 0x3FF);
    }
}
