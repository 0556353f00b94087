// The cache's port calendar: earliest gap on any port, worked by hand.
#include <catch2/catch.hpp>

#include "models/port_calendar.h"

using npusim::Grant;
using npusim::PortCalendar;

TEST_CASE("port calendar: first fit on the earliest free port", "[ports]") {
  PortCalendar ports(2);
  // Port 0 takes [10, 20); port 1 is still free at 0.
  Grant a = ports.reserve(10, 10, 0);
  CHECK(a.start == 10);
  CHECK(a.end == 20);
  Grant b = ports.reserve(0, 5, 0);  // port 0's gap [0, 10) fits 5 cycles
  CHECK(b.start == 0);
  CHECK(b.end == 5);
  Grant c = ports.reserve(0, 8, 0);  // port 0: [5, 10) too short -> 20; port 1: 0
  CHECK(c.start == 0);
  CHECK(c.end == 8);
  Grant d = ports.reserve(3, 6, 0);  // port 0: gap [5, 10) fits? needs 6 -> no, 20; port 1: 8
  CHECK(d.start == 8);
  CHECK(d.end == 14);
}

TEST_CASE("port calendar: a future booking leaves the gap before it usable", "[ports]") {
  PortCalendar ports(1);
  // A load books its cache write for when its data arrives, 100 cycles ahead.
  CHECK(ports.reserve(100, 4, 0).start == 100);
  // A compute read asked for later but needed now still goes first.
  const Grant read = ports.reserve(0, 12, 0);
  CHECK(read.start == 0);
  CHECK(read.end == 12);
  // A 95-cycle access no longer fits before 100: it follows the booking.
  CHECK(ports.reserve(12, 95, 0).start == 104);
}

TEST_CASE("port calendar: zero-length requests take no slot, the past is forgotten", "[ports]") {
  PortCalendar ports(1);
  CHECK(ports.reserve(5, 0, 0).start == 5);
  CHECK(ports.reserve(0, 10, 0).start == 0);
  // At cycle 50 the [0, 10) booking is over: a request at 50 starts at 50.
  CHECK(ports.reserve(50, 3, 50).start == 50);
}
