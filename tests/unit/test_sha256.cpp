// sha256_hex (sim/io/sha256.h): the digests of FIPS 180-2's examples, and parts digested as
// their concatenation.
#include <catch2/catch.hpp>
#include <string>

#include "sim/io/sha256.h"

TEST_CASE("sha256_hex gives the published digests of the empty string and of abc, in parts too",
          "[sha256]") {
  CHECK(npusim::sha256_hex({""}) ==
        "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  CHECK(npusim::sha256_hex({"abc"}) ==
        "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  CHECK(npusim::sha256_hex({"a", "", "bc"}) == npusim::sha256_hex({"abc"}));
  CHECK(npusim::sha256_hex({"abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq"}) ==
        "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
}
