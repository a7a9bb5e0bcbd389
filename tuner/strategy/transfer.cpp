#include "tuner/strategy/transfer.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <numeric>
#include <set>
#include <tuple>

namespace cuop::strategy {

namespace {

// splitmix64 (Steele, Lea, Flood 2014): a fixed, portable sequence for a 64-bit state.
std::uint64_t splitmix64(std::uint64_t& state) {
  std::uint64_t z = (state += 0x9e3779b97f4a7c15ULL);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

std::uint64_t fnv1a(std::string_view text) {
  std::uint64_t h = 0xcbf29ce484222325ULL;
  for (const unsigned char c : text) {
    h ^= c;
    h *= 0x100000001b3ULL;
  }
  return h;
}

// Uniform in [0, n) without modulo bias (rejection of the incomplete last block).
std::uint64_t below(std::uint64_t& state, std::uint64_t n) {
  const std::uint64_t limit = ~std::uint64_t{0} - (~std::uint64_t{0} % n);
  for (;;)
    if (const std::uint64_t v = splitmix64(state); v < limit) return v % n;
}

}  // namespace

std::size_t trial_budget::for_problem(std::size_t candidates) const {
  if (candidates == 0) return 0;
  std::size_t n = trials;
  if (trials == 0) {
    // A hair below, so that 0.1 x 30 is 3 and not 4 when 0.1 x 30 is 3.0000000000000004.
    const double wanted = std::ceil(fraction * static_cast<double>(candidates) - 1e-9);
    n = wanted < 1 ? 1 : static_cast<std::size_t>(wanted);
  }
  return std::min(n, candidates);
}

double time_share_s(double left_s, std::size_t problems_left, std::size_t lanes) {
  if (left_s <= 0) return 0;
  const double per_lane = static_cast<double>(problems_left) / static_cast<double>(std::max<std::size_t>(lanes, 1));
  return per_lane <= 1 ? left_s : left_s / per_lane;
}

bool within_time(std::size_t measured, double spent_s, double share_s) { return measured == 0 || spent_s < share_s; }

std::string trial_budget::str() const {
  if (trials > 0) return fmt::format("{} trial{}", trials, trials == 1 ? "" : "s");
  return fmt::format("{:g}%", fraction * 100);
}

std::vector<std::size_t> visit_order(std::span<const shape_point> shapes) {
  std::vector<std::size_t> order(shapes.size());
  std::iota(order.begin(), order.end(), std::size_t{0});
  std::sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
    const auto& x = shapes[a];
    const auto& y = shapes[b];
    return std::tie(x.group, x.features, x.key, a) < std::tie(y.group, y.features, y.key, b);
  });
  return order;
}

double feature_distance(std::span<const double> a, std::span<const double> b) {
  double d = 0;
  for (std::size_t i = 0; i < a.size() && i < b.size(); ++i) d += std::fabs(a[i] - b[i]);
  return d;
}

namespace {

bool among(const std::set<std::string>* candidates, const std::string& instance) {
  return !candidates || candidates->contains(instance);
}

}  // namespace

std::vector<std::size_t> nearest_measured(const shape_point& s, std::span<const measured_problem> known, int k,
                                          const std::set<std::string>* candidates) {
  std::vector<std::tuple<double, const std::string*, std::size_t>> ranked;
  for (std::size_t i = 0; i < known.size(); ++i) {
    const auto& p = known[i];
    if (p.shape.group != s.group || p.verified.empty()) continue;
    ranked.emplace_back(feature_distance(s.features, p.shape.features), &p.shape.key, i);
  }
  std::sort(ranked.begin(), ranked.end(), [](const auto& a, const auto& b) {
    if (std::get<0>(a) != std::get<0>(b)) return std::get<0>(a) < std::get<0>(b);
    if (*std::get<1>(a) != *std::get<1>(b)) return *std::get<1>(a) < *std::get<1>(b);
    return std::get<2>(a) < std::get<2>(b);
  });
  std::vector<std::size_t> out;
  for (const auto& r : ranked) {
    if (static_cast<int>(out.size()) >= k) break;
    const auto& verified = known[std::get<2>(r)].verified;
    if (std::any_of(verified.begin(), verified.end(), [&](const outcome& o) { return among(candidates, o.instance); }))
      out.push_back(std::get<2>(r));
  }
  return out;
}

std::vector<suggestion> winners_of(const measured_problem& p, const std::set<std::string>* candidates) {
  std::vector<suggestion> out;
  // The winner: the lowest median, the first instance by name on a tie.
  const outcome* best = nullptr;
  for (const auto& o : p.verified)
    if (among(candidates, o.instance) &&
        (!best || o.median_us < best->median_us || (o.median_us == best->median_us && o.instance < best->instance)))
      best = &o;
  if (!best) return out;
  for (const auto& o : p.verified) {
    if (!among(candidates, o.instance)) continue;
    const bool overlaps = o.ci_lo_us <= best->ci_hi_us && best->ci_lo_us <= o.ci_hi_us;
    const double ratio = best->median_us > 0 ? o.median_us / best->median_us : 1;
    if (&o == best || overlaps || ratio <= 1 + near_winner) out.push_back({o.instance, &o == best ? 1.0 : ratio});
  }
  std::sort(out.begin(), out.end(), [](const suggestion& a, const suggestion& b) {
    return std::tie(a.ratio, a.instance) < std::tie(b.ratio, b.instance);
  });
  return out;
}

std::string_view name_of(pick_reason r) {
  switch (r) {
    case pick_reason::baseline: return "baseline";
    case pick_reason::neighbour: return "neighbour";
    case pick_reason::random: return "random";
  }
  return "?";
}

std::vector<std::string> seeded_order(std::vector<std::string> names, std::uint64_t seed, std::string_view salt) {
  std::sort(names.begin(), names.end());
  names.erase(std::unique(names.begin(), names.end()), names.end());
  std::uint64_t state = seed ^ fnv1a(salt);
  for (std::size_t i = names.size(); i > 1; --i) std::swap(names[i - 1], names[below(state, i)]);
  return names;
}

std::vector<pick> transfer_order(const shape_point& s, std::span<const std::string> candidates,
                                 const std::string& baseline, std::span<const measured_problem> known,
                                 const transfer_params& params) {
  const std::set<std::string> pool(candidates.begin(), candidates.end());
  std::set<std::string> placed;
  std::vector<pick> out;
  const auto place = [&](const std::string& instance, pick_reason why, const std::string& from) {
    if (!pool.contains(instance) || !placed.insert(instance).second) return;
    out.push_back({instance, why, from});
  };
  if (!baseline.empty()) place(baseline, pick_reason::baseline, "");
  // The neighbours' suggestions, best first: every winner before any runner-up.
  struct ranked {
    double ratio;
    std::size_t rank;  // the neighbour's, nearest 0
    const std::string* instance;
    const std::string* from;
  };
  std::vector<ranked> suggested;
  const auto near = nearest_measured(s, known, params.neighbours, &pool);
  std::vector<std::vector<suggestion>> lists;  // kept alive: `suggested` points into them
  lists.reserve(near.size());
  for (std::size_t rank = 0; rank < near.size(); ++rank) {
    lists.push_back(winners_of(known[near[rank]], &pool));
    for (const auto& sg : lists.back())
      suggested.push_back({sg.ratio, rank, &sg.instance, &known[near[rank]].shape.key});
  }
  std::stable_sort(suggested.begin(), suggested.end(), [](const ranked& a, const ranked& b) {
    return std::tie(a.ratio, a.rank, *a.instance) < std::tie(b.ratio, b.rank, *b.instance);
  });
  for (const auto& r : suggested) place(*r.instance, pick_reason::neighbour, *r.from);
  // The rest in the problem's own random order: of all its candidates, so that what the
  // neighbours suggested moves ahead and the others keep their places.
  for (const auto& c : seeded_order({pool.begin(), pool.end()}, params.seed, s.key)) place(c, pick_reason::random, "");
  return out;
}

std::vector<pick> to_measure(std::span<const pick> order, std::span<const std::string> already, std::size_t budget) {
  const std::set<std::string> done(already.begin(), already.end());
  std::size_t spent = done.size();
  std::vector<pick> out;
  for (const auto& p : order) {
    if (spent >= budget) break;
    if (done.contains(p.instance)) continue;
    out.push_back(p);
    ++spent;
  }
  return out;
}

}  // namespace cuop::strategy
