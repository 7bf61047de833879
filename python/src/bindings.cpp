// bindings.cpp: bankscope._core, the C++ model (sim/) and the SVG drawings (app/svg/) for Python.
//
// The Python layer (python/bankscope/*.py) shapes arguments and results; every rule, check and
// message comes from here and from sim/. Bad input raises ValueError or TypeError carrying the
// same one-line message bankscope-cli prints (without the CLI's "file: line N:" prefix).
//
// Index:
//   [SECTION] errors and Python -> JSON
//   [SECTION] one warp instruction
//   [SECTION] batches
//   [SECTION] layouts and pictures
//   [SECTION] scenarios
//   [SECTION] traces
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "app/svg/svg_export.hpp"
#include "sim/bank_model.hpp"
#include "sim/json_io.hpp"
#include "sim/kernel_model.hpp"
#include "sim/predict_report.hpp"
#include "sim/layout.hpp"
#include "sim/scenario.hpp"
#include "sim/trace_report.hpp"

namespace py = pybind11;
namespace bs = bankscope;
using ojson = nlohmann::ordered_json;

namespace {

// ---------------------------------------------------------------------------------------------
// [SECTION] errors and Python -> JSON
// ---------------------------------------------------------------------------------------------

// A message about the kind of a value ("expected an integer, got a string") is a TypeError;
// everything else (range, alignment, syntax) a ValueError.
[[noreturn]] void raise(const std::string& message) {
  const bool about_kind = message.find(": expected ") != std::string::npos &&
                          message.find(" entries") == std::string::npos;  // "got 31 entries": a length
  if (about_kind) throw py::type_error(message);
  throw py::value_error(message);
}
[[noreturn]] void raise(const bs::Error& e) { raise(e.message); }

template <class T>
T unwrap(bs::Result<T> r) {
  if (!r) raise(r.error());
  return std::move(*r);
}

// Python value -> JSON value, so that arguments go through the same parser (and get the same
// messages) as a JSONL line or a scenario file. `where` names the value in errors.
ojson to_json(const py::handle& o, const std::string& where, int depth = 0) {
  if (depth > bs::kMaxJsonDepth) raise(where + ": nested more than " + std::to_string(bs::kMaxJsonDepth) + " levels");
  if (o.is_none()) return nullptr;
  if (py::isinstance<py::bool_>(o)) return o.cast<bool>();
  // Integers, NumPy integers included (anything with __index__ that is not a float).
  if (py::isinstance<py::int_>(o) || (py::hasattr(o, "__index__") && !py::isinstance<py::float_>(o) &&
                                      !py::isinstance<py::str>(o) && !py::isinstance<py::sequence>(o))) {
    py::int_ i = py::reinterpret_steal<py::int_>(PyNumber_Index(o.ptr()));
    if (!i) throw py::error_already_set();
    int overflow = 0;
    const long long v = PyLong_AsLongLongAndOverflow(i.ptr(), &overflow);
    if (overflow == 0) return static_cast<int64_t>(v);
    if (overflow > 0) {
      const unsigned long long u = PyLong_AsUnsignedLongLong(i.ptr());
      if (!PyErr_Occurred()) return static_cast<uint64_t>(u);
      PyErr_Clear();
    }
    raise(where + ": " + py::str(i).cast<std::string>() + " does not fit in 64 bits");
  }
  if (py::isinstance<py::float_>(o)) {
    const double d = o.cast<double>();
    // JSON has no NaN or infinity; say so rather than let them through as null.
    if (!std::isfinite(d)) raise(where + ": expected an integer, got " + py::repr(o).cast<std::string>());
    return d;
  }
  if (py::isinstance<py::str>(o)) return o.cast<std::string>();
  if (py::isinstance<py::dict>(o)) {
    ojson j = ojson::object();
    for (auto item : o.cast<py::dict>()) {
      if (!py::isinstance<py::str>(item.first)) raise(where + ": keys must be strings");
      const std::string k = item.first.cast<std::string>();
      j[k] = to_json(item.second, where.empty() ? k : where + "." + k, depth + 1);
    }
    return j;
  }
  if (py::hasattr(o, "tolist") && !py::isinstance<py::list>(o)) {  // a NumPy array or scalar
    return to_json(o.attr("tolist")(), where, depth);
  }
  if (py::isinstance<py::list>(o) || py::isinstance<py::tuple>(o)) {
    ojson j = ojson::array();
    size_t i = 0;
    for (auto item : o) {
      j.push_back(to_json(item, where + "[" + std::to_string(i) + "]", depth + 1));
      ++i;
    }
    return j;
  }
  raise(where + ": expected a number, a string or a list, got " +
        py::str(py::type::of(o).attr("__name__")).cast<std::string>());
}

// ---------------------------------------------------------------------------------------------
// [SECTION] one warp instruction
// ---------------------------------------------------------------------------------------------

// {"width", "op", "mask", "offsets"} -> a validated WarpAccess, through the JSONL parser.
bs::WarpAccess access_of(const py::dict& pattern) {
  ojson j = to_json(pattern, "");
  return unwrap(bs::parse_pattern_object(j)).access;
}

py::tuple cost_of(const py::dict& pattern) {
  const bs::WarpAccess a = access_of(pattern);
  const bs::AccessCost c = bs::cost(a);
  return py::make_tuple(c.wavefronts, c.bank_conflicts(), c.ideal_wavefronts, c.n_way);
}

py::dict report_dict(const bs::AccessReport& rep) {
  py::dict d;
  d["wavefronts"] = rep.cost.wavefronts;
  d["bank_conflicts"] = rep.cost.bank_conflicts();
  d["ideal_wavefronts"] = rep.cost.ideal_wavefronts;
  d["n_way"] = rep.cost.n_way;
  d["efficiency"] = rep.efficiency();
  d["width"] = rep.access.width;
  d["op"] = bs::op_name(rep.access.op);
  d["mask"] = rep.access.mask;
  py::list lanes;
  for (int lane = 0; lane < bs::kWarpSize; ++lane) {
    const bs::LaneDetail& l = rep.lanes[static_cast<size_t>(lane)];
    py::dict ld;
    ld["lane"] = lane;
    ld["active"] = l.active;
    ld["address"] = l.addr;
    std::vector<int> banks(l.bank.begin(), l.bank.begin() + l.words);
    std::vector<uint32_t> words(l.word.begin(), l.word.begin() + l.words);
    ld["banks"] = banks;
    ld["words"] = words;
    ld["phase"] = l.phase;
    ld["wavefront"] = l.wavefront;
    lanes.append(ld);
  }
  d["lanes"] = lanes;
  d["bank_words"] = rep.bank_words;
  std::vector<uint32_t> phases(rep.phase_masks.begin(), rep.phase_masks.end());
  d["phase_masks"] = phases;
  py::list wfs;
  for (const bs::WavefrontDetail& w : rep.wavefronts) {
    py::dict wd;
    wd["phase"] = w.phase;
    std::vector<int> lanes_served;
    for (int lane = 0; lane < bs::kWarpSize; ++lane) {
      if ((w.lanes >> lane) & 1u) lanes_served.push_back(lane);
    }
    wd["lanes"] = lanes_served;
    std::vector<int> banks;
    for (int b = 0; b < 64; ++b) {
      if ((w.banks >> b) & 1u) banks.push_back(b);
    }
    wd["banks"] = banks;
    wd["words"] = w.words;
    wfs.append(wd);
  }
  d["wavefront_details"] = wfs;
  return d;
}

// ---------------------------------------------------------------------------------------------
// [SECTION] batches
// ---------------------------------------------------------------------------------------------

// offsets: uint32 [N, 32] C-contiguous; masks: uint32 [N] or [1]. Width and op are checked through
// the JSONL parser once; every row's offsets are range- and alignment-checked like a JSONL line.
py::tuple cost_batch(py::array_t<uint32_t, py::array::c_style> offsets, int width, const std::string& op,
                     py::array_t<uint32_t, py::array::c_style> masks) {
  {
    py::dict probe;
    probe["width"] = width;
    probe["op"] = op;
    probe["offsets"] = std::vector<int>(bs::kWarpSize, 0);
    if (!bs::is_plain(access_of(probe).op)) raise("op: '" + op + "': cost_batch takes \"ld\" or \"st\"");
  }
  if (offsets.ndim() != 2 || offsets.shape(1) != bs::kWarpSize) raise("offsets: expected shape (N, 32)");
  const py::ssize_t n = offsets.shape(0);
  if (masks.ndim() != 1 || (masks.shape(0) != 1 && masks.shape(0) != n)) raise("mask: expected one mask or N masks");
  py::array_t<int32_t> wf(n), bc(n);
  const uint32_t* src = offsets.data();
  const uint32_t* m = masks.data();
  const bool one_mask = masks.shape(0) == 1;
  int32_t* wf_out = wf.mutable_data();
  int32_t* bc_out = bc.mutable_data();
  bs::WarpAccess a;
  a.width = width;
  a.op = op == "st" ? bs::Op::kStore : bs::Op::kLoad;
  size_t done = 0;
  {
    // One call for the whole batch: sim's cost_rows() checks each row and costs it with cost()'s
    // own code, without a per-row dispatch or copy here.
    py::gil_scoped_release nogil;
    done = bs::cost_rows(a, src, m, one_mask, static_cast<size_t>(n), bs::kMaxSharedBytesPerBlockSm90, wf_out, bc_out);
  }
  std::string error;
  if (done < static_cast<size_t>(n)) {  // the slow path, only to name the row and the lane
    const uint32_t* row = src + done * bs::kWarpSize;
    const std::string where = "row " + std::to_string(done) + ": ";
    for (int lane = 0; lane < bs::kWarpSize && error.empty(); ++lane) {
      if (row[lane] >= bs::kMaxSharedBytesPerBlockSm90) {
        error = where + "offsets[" + std::to_string(lane) + "]: " + std::to_string(row[lane]) +
                " is out of range 0.." + std::to_string(bs::kMaxSharedBytesPerBlockSm90 - 1);
      }
    }
    if (error.empty()) {
      a.mask = one_mask ? m[0] : m[done];
      std::copy(row, row + bs::kWarpSize, a.addr.begin());
      auto v = bs::validate(a, bs::BankConfig{});
      error = where + (v ? std::string("invalid") : v.error().message);
    }
  }
  if (!error.empty()) raise(error);
  return py::make_tuple(wf, bc);
}

// ---------------------------------------------------------------------------------------------
// [SECTION] layouts and pictures
// ---------------------------------------------------------------------------------------------

bs::ElementType element_type(const std::string& name) {
  auto t = bs::parse_element_type(name);
  if (!t) raise("type: unknown element type '" + name + "' (char, half, float, double, float2, float4)");
  return *t;
}

bs::SharedArray shared_array(const std::string& type, int rows, int cols, int row_stride, int xor_mask,
                             int b, int m, int s) {
  bs::PhysicalLayout layout{row_stride, xor_mask, bs::Swizzle{b, m, s}};
  return unwrap(bs::make_shared_array("tile", element_type(type), bs::TileShape{rows, cols, 2}, layout));
}

// (row, col) -> physical element offset for arrays of indices (PhysicalLayout::offset, the same
// function the kernels use). No bounds check: the Python layer checks the shape when it has one.
py::array_t<int64_t> physical_offsets(int row_stride, int xor_mask, int b, int m, int s,
                                      py::array_t<int64_t, py::array::c_style | py::array::forcecast> rows,
                                      py::array_t<int64_t, py::array::c_style | py::array::forcecast> cols) {
  if (rows.size() != cols.size()) raise("rows and cols: expected the same number of indices");
  if (b < 0 || m < 0 || s < 0 || b > 16 || m > 16 || s > 16) raise("swizzle: B, M and S must each be in 0..16");
  if (b > 0 && s < b) {
    raise("swizzle: Swizzle<" + std::to_string(b) + "," + std::to_string(m) + "," + std::to_string(s) +
          "> needs S >= B (the XORed fields would overlap)");
  }
  const bs::PhysicalLayout layout{row_stride, xor_mask, bs::Swizzle{b, m, s}};
  py::array_t<int64_t> out(rows.size());
  const int64_t* r = rows.data();
  const int64_t* c = cols.data();
  int64_t* o = out.mutable_data();
  for (py::ssize_t i = 0; i < rows.size(); ++i) o[i] = layout.offset(r[i], c[i]);
  return out;
}

py::array_t<int64_t> swizzle_apply(int b, int m, int s, py::array_t<int64_t, py::array::c_style | py::array::forcecast> x) {
  return physical_offsets(0, 0, b, m, s, py::array_t<int64_t>(x.size()), x);
}

std::vector<int> stride_sweep(const std::string& type, int max_stride, const std::string& op) {
  if (max_stride < 1 || max_stride > 1024) raise("max_stride: " + std::to_string(max_stride) + " is out of range 1..1024");
  if (op != "ld" && op != "st") raise("op: '" + bankscope::printable(op) + "' must be \"ld\" or \"st\"");
  return bs::column_read_sweep(element_type(type), max_stride, op == "st" ? bs::Op::kStore : bs::Op::kLoad).wavefronts;
}

std::string sweep_svg(const std::vector<std::tuple<std::string, std::vector<int>, std::vector<int>>>& series,
                      const std::string& title) {
  std::vector<bs::SweepSeries> s;
  for (const auto& [label, x, y] : series) {
    if (x.size() != y.size()) raise("series '" + label + "': strides and wavefronts differ in length");
    s.push_back(bs::SweepSeries{label, x, y});
  }
  return bs::svg_stride_sweep(s, title);
}

// ---------------------------------------------------------------------------------------------
// [SECTION] scenarios
// ---------------------------------------------------------------------------------------------

struct PyScenario {
  bs::ScenarioSpec spec;
  std::string source;  // file path, or "<dict>"
};

// The scenario with the CLI's overrides (--n, --stride, --type), compiled.
bs::Scenario compiled(const PyScenario& ps, int64_t n, int64_t stride, const std::string& type) {
  bs::ScenarioSpec spec = ps.spec;
  if (n < 0 || (n != 0 && n > (int64_t{1} << 31))) raise("n: " + std::to_string(n) + " is out of range 1..2147483648");
  if (stride < 0 || stride > (int64_t{1} << 20)) raise("stride: " + std::to_string(stride) + " is out of range 1..1048576");
  if (n != 0) spec.n = n;
  if (stride != 0) {
    spec.arrays[0].row_stride = stride;
    if (spec.name.find('[') != std::string::npos) spec.name += " (stride " + std::to_string(stride) + ")";
  }
  if (!type.empty()) {
    // As the CLI's --type: one parser (sim/layout), an alias is refused rather than shown as another type.
    auto t = bs::parse_element_type_exact(type);
    if (!t) raise("type: " + t.error().message);
    spec.arrays[0].type = bs::element_name(*t);
  }
  auto s = bs::compile(spec);
  if (!s) raise(bs::with_context(ps.source, s.error()));
  return std::move(*s);
}

// The same object as `bankscope-cli predict SCENARIO --json` (sim/predict_report.hpp builds both).
std::string predict_json(const PyScenario& ps, int64_t n, int64_t stride, const std::string& type, int warp) {
  const bs::Scenario s = compiled(ps, n, stride, type);
  if (warp < 0) raise("warp: " + std::to_string(warp) + " must be >= 0");
  bs::Result<std::vector<bs::AccessRow>> rows = bs::Error{""};
  bs::Result<bs::LaunchTotals> lt = bs::Error{""};
  bs::Result<std::vector<bs::WorstWarpRow>> worst = bs::Error{""};
  {
    py::gil_scoped_release nogil;
    rows = bs::warp_rows(s, warp);
    if (rows) lt = bs::launch_totals(s);
    if (rows && lt) worst = bs::worst_warp_rows(s);
  }
  if (!rows) raise(rows.error());
  if (!lt) raise(lt.error());
  if (!worst) raise(worst.error());
  return bs::predict_json(s, ps.source, warp, *rows, *lt, &*worst).dump();
}

// Every instruction one warp executes, as patterns {"width", "op", "mask", "offsets"} plus its
// statement index and text (what `explain` walks through).
py::list warp_patterns(const PyScenario& ps, int64_t n, int64_t stride, const std::string& type, int warp,
                       std::vector<int64_t> block) {
  const bs::Scenario s = compiled(ps, n, stride, type);
  if (warp < 0 || warp >= s.warps_per_block()) {
    raise("warp: " + std::to_string(warp) + " is outside 0.." + std::to_string(s.warps_per_block() - 1));
  }
  while (block.size() < 3) block.push_back(0);
  if (block.size() > 3) raise("block: expected at most 3 indices");
  auto wi = bs::warp_instructions(s, bs::Dim3{block[0], block[1], block[2]}, warp);
  if (!wi) raise(wi.error());
  py::list out;
  for (const bs::WarpInstruction& w : *wi) {
    py::dict d;
    d["stmt"] = w.stmt;
    d["text"] = w.text;
    d["width"] = w.access.width;
    d["op"] = bs::op_name(w.access.op);
    d["mask"] = w.access.mask;
    d["offsets"] = std::vector<uint32_t>(w.access.addr.begin(), w.access.addr.end());
    out.append(d);
  }
  return out;
}

// ---------------------------------------------------------------------------------------------
// [SECTION] traces
// ---------------------------------------------------------------------------------------------

// A trace file's bytes, read once; each report (as traced, or a what-if) decodes them again with
// sim's report_trace(), the function `bankscope-cli report` uses.
struct PyTrace {
  std::vector<uint8_t> bytes;
  std::string path;
};

PyTrace load_trace(const std::string& path) {
  auto bytes = bs::read_trace_file(path);
  if (!bytes) raise(path + ": " + bytes.error().message);  // "cannot open the trace file", ...
  return PyTrace{std::move(*bytes), path};
}

// --array/--layout pairs -> remaps, with run_report's checks and messages (app/cli/report.cpp).
std::vector<bs::ArrayRemap> remaps_of(const std::vector<std::string>& arrays, const std::vector<std::string>& layouts) {
  std::vector<bs::SharedArray> parsed;
  for (const std::string& a : arrays) parsed.push_back(unwrap(bs::parse_array_spec(a)));
  std::vector<bs::ArrayRemap> remaps;
  for (const std::string& l : layouts) {
    const std::string name = l.substr(0, l.find(':'));
    const bs::SharedArray* found = nullptr;
    for (const bs::SharedArray& a : parsed)
      if (a.name == name) found = &a;
    if (found == nullptr) raise("--layout '" + l + "': no --array named '" + name + "'");
    remaps.push_back(bs::ArrayRemap{*found, unwrap(bs::apply_layout_spec(*found, l))});
  }
  if (!arrays.empty() && remaps.empty()) raise("--array needs a --layout to try");
  return remaps;
}

py::dict totals_dict(const bs::OpTotals& t) {
  py::dict d;
  d["instructions"] = t.instructions;  // every execution in the trace (as the CLI prints)
  d["active_instructions"] = t.active_instructions;
  d["wavefronts"] = t.wavefronts;
  d["ideal"] = t.ideal;
  d["bank_conflicts"] = t.bank_conflicts();
  return d;
}

py::list launches_list(const bs::TraceReport& r) {
  py::list out;
  for (const bs::LaunchReport& l : r.launches) {
    py::dict d;
    d["launch"] = l.launch.launch;
    d["kernel"] = l.launch.kernel;
    d["grid"] = std::vector<uint32_t>(l.launch.grid.begin(), l.launch.grid.end());
    d["block"] = std::vector<uint32_t>(l.launch.block.begin(), l.launch.block.end());
    d["shared_bytes"] = l.launch.shared_bytes;
    d["reserved_bytes"] = l.launch.reserved_bytes;
    d["blocks_traced"] = l.launch.blocks_traced;  // 0 = all
    d["status"] = l.ended ? bs::trace_status_name(l.end.status) : "no end record";
    d["dropped"] = l.end.dropped;
    d["ld"] = totals_dict(l.ld);
    d["st"] = totals_dict(l.st);
    // The issue-11 kinds (ldsm, stsm, atom, ldgsts) when some of their executions were costed.
    for (int k = 2; k < bs::kTraceOpKinds; ++k) {
      const auto kind = static_cast<bs::TraceOpKind>(k);
      if (l.by_kind[static_cast<size_t>(k)].instructions != 0) d[bs::trace_op_kind_name(kind)] = totals_dict(l.by_kind[static_cast<size_t>(k)]);
    }
    py::dict nm;
    for (int k = 0; k < bs::kTraceOpKinds; ++k) {
      const auto kind = static_cast<bs::TraceOpKind>(k);
      if (l.uncosted_by_kind[static_cast<size_t>(k)] != 0) {
        nm[bs::trace_op_kind_name(kind)] = l.uncosted_by_kind[static_cast<size_t>(k)];
      }
    }
    d["not_modelled_executions"] = nm;
    out.append(d);
  }
  return out;
}

py::list rows_list(const bs::TraceReport& r, bool by_line) {
  py::list out;
  for (const bs::ReportRow& row : bs::report_rows(r, by_line)) {
    py::dict d;
    d["kernel"] = row.kernel;
    d["where"] = row.where;
    d["opcode"] = row.opcode;
    d["kind"] = bs::trace_op_kind_name(row.kind);
    d["modelled"] = row.modelled;
    d["executions"] = row.executions;
    d["wavefronts"] = row.wavefronts;
    d["ideal"] = row.ideal;
    d["bank_conflicts"] = row.excess();
    d["worst_n_way"] = row.worst_n_way;
    d["typical_n_way"] = row.typical_n_way;
    out.append(d);
  }
  return out;
}

// {"executions", "dropped", "complete", "launches", "exit_code", "rows"} as traced, or for the
// what-if when layouts are given. Errors: "PATH: trace: byte N: what" (the reader's line).
py::dict trace_report(const PyTrace& t, const std::vector<std::string>& arrays, const std::vector<std::string>& layouts,
                      bool by_line) {
  const std::vector<bs::ArrayRemap> remaps = remaps_of(arrays, layouts);
  bs::Result<bs::TraceReports> r = bs::Error{""};
  {
    py::gil_scoped_release nogil;
    r = bs::report_trace(t.bytes.data(), t.bytes.size(), remaps);
  }
  if (!r) raise(bs::with_context(t.path, r.error()));
  const bs::TraceReport& rep = remaps.empty() ? r->traced : r->what_if;
  py::dict d;
  d["executions"] = rep.summary.executions;
  d["dropped"] = rep.summary.dropped;
  d["complete"] = rep.summary.complete;
  d["exit_code"] = rep.end.exit_code;
  d["launches"] = launches_list(rep);
  d["rows"] = rows_list(rep, by_line);
  return d;
}

}  // namespace

PYBIND11_MODULE(_core, m) {
  m.doc() = "bankscope's C++ model (sim/) and SVG drawings; use the `bankscope` package, not this module";
  m.attr("warp_size") = bs::kWarpSize;
  m.attr("max_shared_bytes") = bs::kMaxSharedBytesPerBlockSm90;
  m.def("cost_implementation", &bs::cost_implementation);
  m.def("cost", &cost_of, py::arg("pattern"));
  m.def("simulate", [](const py::dict& p) { return report_dict(bs::simulate(access_of(p))); }, py::arg("pattern"));
  m.def("bank_view_svg", [](const py::dict& p, const std::string& title) {
    return bs::svg_bank_view(bs::simulate(access_of(p)), title);
  }, py::arg("pattern"), py::arg("title") = "");
  m.def("cost_batch", &cost_batch, py::arg("offsets"), py::arg("width"), py::arg("op"), py::arg("masks"));
  m.def("physical_offsets", &physical_offsets);
  m.def("swizzle_apply", &swizzle_apply);
  m.def("check_shared_array", [](const std::string& type, int rows, int cols, int row_stride, int xor_mask, int b,
                                 int mm, int s) {
    return shared_array(type, rows, cols, row_stride, xor_mask, b, mm, s).declaration();
  });
  m.def("element_size", [](const std::string& t) { return bs::element_size(element_type(t)); });
  m.def("tile_views_svg", [](const std::string& type, int rows, int cols, int row_stride, int xor_mask, int b, int mm,
                             int s, const bs::LaneElements& lanes, const std::string& title) {
    return unwrap(bs::svg_tile_views(shared_array(type, rows, cols, row_stride, xor_mask, b, mm, s), lanes, {}, title));
  });
  m.def("stride_sweep", &stride_sweep);
  m.def("sweep_svg", &sweep_svg);

  py::class_<PyScenario>(m, "Scenario")
      .def_readonly("source", &PyScenario::source)
      .def_property_readonly("name", [](const PyScenario& s) { return s.spec.name; })
      .def("to_json", [](const PyScenario& s) { return bs::scenario_to_json(s.spec).dump(2); })
      .def("predict_json", &predict_json)
      .def("warp_patterns", &warp_patterns);
  py::class_<PyTrace>(m, "Trace")
      .def_readonly("path", &PyTrace::path)
      .def("report", &trace_report, py::arg("arrays"), py::arg("layouts"), py::arg("by_line"));
  m.def("load_trace", &load_trace, py::arg("path"));
  m.def("load_scenario", [](const std::string& path) {
    return PyScenario{unwrap(bs::load_scenario_file(path)), path};
  });
  m.def("parse_scenario", [](const std::string& text, const std::string& source) {
    return PyScenario{unwrap(bs::parse_scenario_json(text, source)), source};
  });
}
