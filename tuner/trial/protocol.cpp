#include "tuner/trial/protocol.hpp"

#include "tuner/core/error.hpp"

namespace cuop::trial {

using nlohmann::json;

json to_json(const device_info& d) {
  return {{"protocol", d.protocol},
          {"present", d.present},
          {"error", d.error},
          {"index", d.index},
          {"name", d.name},
          {"uuid", d.uuid},
          {"sm_count", d.sm_count},
          {"l2_bytes", d.l2_bytes},
          {"cc", d.cc},
          {"global_mem", d.global_mem},
          {"driver", d.driver},
          {"runtime", d.runtime},
          {"device_count", d.device_count}};
}

device_info device_info_from_json(const json& j) {
  device_info d;
  d.protocol = j.value("protocol", 0);
  d.present = j.at("present").get<bool>();
  d.error = j.value("error", "");
  d.index = j.value("index", 0);
  d.name = j.value("name", "");
  d.uuid = j.value("uuid", "");
  d.sm_count = j.value("sm_count", 0);
  d.l2_bytes = j.value("l2_bytes", 0LL);
  d.cc = j.value("cc", 0);
  d.global_mem = j.value("global_mem", 0LL);
  d.driver = j.value("driver", "");
  d.runtime = j.value("runtime", "");
  d.device_count = j.value("device_count", 0);
  return d;
}

json to_json(const trial_request& r) {
  const auto& m = r.measure;
  return {{"cmd", "trial"},
          {"op", r.op},
          {"cubin_path", r.cubin_path},
          {"entry", r.entry},
          {"dtype", r.dtype},
          {"config", r.config},
          {"dims", r.dims},
          {"seed", r.seed},
          {"force_batch", r.force_batch},
          {"measure",
           {{"warmup_ms", m.warmup_ms},
            {"warmup_cap_ms", m.warmup_cap_ms},
            {"min_samples", m.min_samples},
            {"max_samples", m.max_samples},
            {"max_time_s", m.max_time_s},
            {"rel_ci", m.rel_ci},
            {"stable_batches", m.stable_batches},
            {"stable_change", m.stable_change},
            {"batch_below_us", m.batch_below_us},
            {"flush_l2", m.flush_l2},
            {"timeout_s", m.timeout_s}}}};
}

trial_request trial_request_from_json(const json& j) {
  trial_request r;
  if (!j.contains("op") || !j["op"].is_string()) throw error("trial request: no \"op\" (the op's name) in the request");
  r.op = j["op"].get<std::string>();
  r.cubin_path = j.at("cubin_path").get<std::string>();
  r.entry = j.at("entry").get<std::string>();
  r.dtype = j.at("dtype").get<std::string>();
  r.config = j.at("config");
  r.dims = j.at("dims");
  r.seed = j.value("seed", std::uint64_t{1});
  r.force_batch = j.value("force_batch", 0);
  const auto& m = j.at("measure");
  const measure::settings defaults;
  r.measure.warmup_ms = m.at("warmup_ms").get<int>();
  r.measure.min_samples = m.at("min_samples").get<int>();
  r.measure.max_samples = m.at("max_samples").get<int>();
  r.measure.max_time_s = m.at("max_time_s").get<double>();
  r.measure.rel_ci = m.at("rel_ci").get<double>();
  r.measure.flush_l2 = m.at("flush_l2").get<bool>();
  r.measure.timeout_s = m.at("timeout_s").get<double>();
  r.measure.warmup_cap_ms = m.value("warmup_cap_ms", defaults.warmup_cap_ms);
  r.measure.stable_batches = m.value("stable_batches", defaults.stable_batches);
  r.measure.stable_change = m.value("stable_change", defaults.stable_change);
  r.measure.batch_below_us = m.value("batch_below_us", defaults.batch_below_us);
  return r;
}

json to_json(const trial_response& r) {
  return {{"status", r.status},
          {"message", r.message},
          {"samples_us", r.samples_us},
          {"clocks_mhz", r.clocks_mhz},
          {"max_error", r.max_error},
          {"stop_reason", r.stop_reason},
          {"restart", r.worker_must_restart},
          {"warmup_ms", r.warmup_ms},
          {"warmup_launches", r.warmup_launches},
          {"warmup_capped", r.warmup_capped},
          {"batch", r.batch},
          {"buffer_sets", r.buffer_sets},
          {"clock_source", r.clock_source},
          {"note", r.note}};
}

trial_response trial_ended(std::string status, std::string message) {
  trial_response r;
  r.status = std::move(status);
  r.message = std::move(message);
  return r;
}

trial_response trial_response_from_json(const json& j) {
  trial_response r;
  r.status = j.at("status").get<std::string>();
  r.message = j.value("message", "");
  r.samples_us = j.value("samples_us", std::vector<double>{});
  r.max_error = j.value("max_error", 0.0);
  r.stop_reason = j.value("stop_reason", "");
  r.worker_must_restart = j.value("restart", false);
  r.clocks_mhz = j.value("clocks_mhz", std::vector<double>{});
  r.warmup_ms = j.value("warmup_ms", 0.0);
  r.warmup_launches = j.value("warmup_launches", 0);
  r.warmup_capped = j.value("warmup_capped", false);
  r.batch = j.value("batch", 1);
  r.buffer_sets = j.value("buffer_sets", 1);
  r.clock_source = j.value("clock_source", "");
  r.note = j.value("note", "");
  return r;
}

}  // namespace cuop::trial
