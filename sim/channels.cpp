#include "sim/channels.h"

#include <charconv>
#include <ostream>
#include <stdexcept>
#include <system_error>

namespace rbs {

int ChannelSet::add(std::string name, std::string unit, std::string description) {
  if (find(name) >= 0) throw std::invalid_argument("duplicate channel name '" + name + "'");
  channels_.push_back({std::move(name), std::move(unit), std::move(description)});
  return size() - 1;
}

int ChannelSet::find(std::string_view name) const {
  for (int i = 0; i < size(); ++i)
    if (channels_[i].name == name) return i;
  return -1;
}

namespace {

/// 17 significant digits (round-trip exact), independent of the locale: "%.17g" via to_chars.
void writeNumber(std::ostream& out, double v) {
  char buf[64];
  const auto r = std::to_chars(buf, buf + sizeof buf, v, std::chars_format::general, 17);
  out.write(buf, r.ptr - buf);
}

/// RFC 4180 quoting for a name that contains a comma, a quote or a line break.
void writeField(std::ostream& out, const std::string& s) {
  if (s.find_first_of(",\"\r\n") == std::string::npos) {
    out << s;
    return;
  }
  out << '"';
  for (char c : s) {
    if (c == '"') out << '"';
    out << c;
  }
  out << '"';
}

}  // namespace

void writeCsvHeader(std::ostream& out, const ChannelSet& channels) {
  out << 't';
  for (int i = 0; i < channels.size(); ++i) {
    out << ',';
    writeField(out, channels[i].name);
  }
  out << '\n';
}

void writeCsvRow(std::ostream& out, double t, std::span<const double> values) {
  writeNumber(out, t);
  for (double v : values) {
    out << ',';
    writeNumber(out, v);
  }
  out << '\n';
}

void writeCsv(std::ostream& out, const Recording& recording) {
  writeCsvHeader(out, recording.channels);
  for (std::size_t k = 0; k < recording.time.size(); ++k) writeCsvRow(out, recording.time[k], recording.values[k]);
}

}  // namespace rbs
