// LoweredValues<TileState>: the old-value -> new-values map of a 1:N lowering that rebuilds a kernel
// body op by op (lower-generic and lower-xe). A subgroup tile becomes a TileState (what the lowering
// needs to address it) whose `offs` are the lane-level values that stand for it in control flow;
// every other value becomes one or more new values.
// Also rebuilds scf.for / scf.if around the lowering's own block walker, so tiles and vectors can be
// loop-carried and yielded by ifs with the same rule in every lowering.
//
// TileState needs: `Value* mem` (the lowered memref), `std::vector<Value*> offs` (one index value per
// memref dimension) and copy semantics.
#pragma once

#include "ir/Builder.h"
#include "ir/Operation.h"

#include <functional>
#include <stdexcept>
#include <string>
#include <unordered_map>
#include <vector>

namespace xtc::passes {

template <class TileState>
class LoweredValues {
public:
  // `fail` reports a diagnostic at the op and must not return (the lowerings throw).
  using Fail = std::function<void(const ir::Operation&, const std::string&)>;
  explicit LoweredValues(Fail fail) : fail_(std::move(fail)) {}

  const std::vector<ir::Value*>& get(ir::Value* v, const ir::Operation& user) {
    auto it = map_.find(v);
    if (it == map_.end()) die(user, "internal error: operand not lowered yet");
    return it->second;
  }
  ir::Value* get1(ir::Value* v, const ir::Operation& user) {
    const auto& vs = get(v, user);
    if (vs.size() != 1) die(user, "internal error: expected one lowered value");
    return vs[0];
  }
  const TileState& tile(ir::Value* v, const ir::Operation& user) {
    auto it = tiles_.find(v);
    if (it == tiles_.end()) die(user, "internal error: tile not lowered yet");
    return it->second;
  }
  bool hasTile(ir::Value* v) const { return tiles_.count(v) != 0; }
  bool has(ir::Value* v) const { return map_.count(v) != 0; }
  void set(ir::Value* old, std::vector<ir::Value*> news) { map_[old] = std::move(news); }
  void setTile(ir::Value* old, TileState s) {
    map_[old] = s.offs;
    tiles_[old] = std::move(s);
  }
  // The new values of `olds`, concatenated (operands of yields, returns and loop inits).
  std::vector<ir::Value*> flatten(const std::vector<ir::Value*>& olds, const ir::Operation& user) {
    std::vector<ir::Value*> r;
    for (ir::Value* v : olds)
      for (ir::Value* n : get(v, user)) r.push_back(n);
    return r;
  }
  // Maps olds (results or block arguments) to consecutive slices of `news`. A tile takes its memref
  // from `inits[i]` (the value that initialised the loop-carried tile, or the if's yielded one) and
  // as many new values as that state has offsets; any other value takes one new value.
  void mapSlices(const std::vector<ir::Value*>& olds, const std::vector<ir::Value*>& news,
                 const std::vector<ir::Value*>& inits, const ir::Operation& op) {
    size_t pos = 0;
    for (size_t i = 0; i < olds.size(); ++i) {
      ir::Value* o = olds[i];
      if (o->type().isTile()) {
        if (i >= inits.size()) die(op, "internal error: tile without an initial value");
        TileState s = tile(inits[i], op);
        if (pos + s.offs.size() > news.size()) die(op, "internal error: too few lowered values");
        s.offs.assign(news.begin() + static_cast<long>(pos), news.begin() + static_cast<long>(pos + s.offs.size()));
        pos += s.offs.size();
        setTile(o, std::move(s));
      } else {
        if (pos >= news.size()) die(op, "internal error: too few lowered values");
        map_[o] = {news[pos++]};
      }
    }
  }

  // Rebuilds scf.for `op` at `b` with every iteration value flattened; `lowerBlock(oldBody)` lowers
  // the body with `b` pointing into the new one. Returns the new loop. `lb`/`ub` (lowered values)
  // replace the bounds and `carried` the flattened initial values when given: one of several loops
  // that together run the iterations of `op` (lower-xe's interior and edge loops on dg2).
  ir::Operation* rebuildFor(ir::Operation& op, ir::Builder& b, const std::function<void(ir::Block&)>& lowerBlock,
                            ir::Value* lb = nullptr, ir::Value* ub = nullptr, const std::vector<ir::Value*>* carried = nullptr) {
    std::vector<ir::Value*> olds(op.operands().begin() + 3, op.operands().end());
    std::vector<ir::Value*> inits = carried ? *carried : flatten(olds, op);
    std::vector<ir::Value*> operands{lb ? lb : get1(op.operand(0), op), ub ? ub : get1(op.operand(1), op), get1(op.operand(2), op)};
    std::vector<ir::Type> types;
    for (ir::Value* v : inits) {
      operands.push_back(v);
      types.push_back(v->type());
    }
    ir::Operation* nf = b.create("scf.for", operands, types, op.attrs(), 1);
    ir::Block& ob = op.region(0).block();
    ir::Block& nb = nf->region(0).addBlock();
    ir::Value* iv = nb.addArgument(ir::Type::index());
    iv->setNameHint(ob.argument(0)->nameHint());
    map_[ob.argument(0)] = {iv};
    std::vector<ir::Value*> newArgs;
    for (const ir::Type& t : types) newArgs.push_back(nb.addArgument(t));
    std::vector<ir::Value*> oldArgs = ob.arguments();  // a copy: arguments() returns by value
    oldArgs.erase(oldArgs.begin());                     // the induction variable, mapped above
    mapSlices(oldArgs, newArgs, olds, op);
    for (ir::Value* a : oldArgs)
      if (!a->type().isTile()) map_[a][0]->setNameHint(a->nameHint());
    ir::Builder saved = b;
    b.setInsertionPointToEnd(&nb);
    lowerBlock(ob);
    b = saved;
    mapSlices(op.results(), nf->results(), olds, op);
    return nf;
  }

  // Rebuilds scf.if `op` at `b`. `laneTypes(v)` gives the lane-level types of a non-tile result. A
  // yielded tile becomes its offsets (index values, one per dimension of its memref); both branches
  // must yield tiles of the same memref (checked after lowering them).
  ir::Operation* rebuildIf(ir::Operation& op, ir::Builder& b, const std::function<std::vector<ir::Type>(ir::Value*)>& laneTypes,
                           const std::function<void(ir::Block&)>& lowerBlock) {
    std::vector<ir::Value*> thenYield;
    if (op.numResults() > 0) thenYield = op.region(0).block().terminator()->operands();
    std::vector<ir::Type> types;
    for (ir::Value* r : op.results()) {
      if (r->type().isTile() && r->type().tileInfo().scattered) {
        die(op, "scattered tiles yielded by scf.if are not implemented yet");
      } else if (r->type().isTile()) {
        ir::Value* mem = tileMemRef(thenYield.at(r->index()));
        if (!mem) die(op, "tiles yielded by scf.if must come from an init_tile of a memref");
        for (int64_t d = 0; d < mem->type().rank(); ++d) types.push_back(ir::Type::index());
      } else {
        for (const ir::Type& t : laneTypes(r)) types.push_back(t);
      }
    }
    ir::Operation* ni = b.create("scf.if", {get1(op.operand(0), op)}, types, op.attrs(), op.numRegions());
    ir::Builder saved = b;
    for (unsigned r = 0; r < op.numRegions(); ++r) {
      if (op.region(r).empty()) continue;
      b.setInsertionPointToEnd(&ni->region(r).addBlock());
      lowerBlock(op.region(r).block());
    }
    b = saved;
    if (op.numRegions() > 1 && !op.region(1).empty() && op.numResults() > 0) {
      std::vector<ir::Value*> elseYield = op.region(1).block().terminator()->operands();
      for (ir::Value* r : op.results())
        if (r->type().isTile() && tile(thenYield[r->index()], op).mem != tile(elseYield[r->index()], op).mem)
          die(op, "the branches of this scf.if yield tiles of different memrefs (not implemented yet)");
    }
    mapSlices(op.results(), ni->results(), thenYield, op);
    return ni;
  }

  // The (old) memref a tile value views: followed through update_tile_offset, loop-carried values and
  // if results back to its init_tile; null for a raw address or anything else.
  static ir::Value* tileMemRef(ir::Value* t) {
    for (int guard = 0; t && guard < 10000; ++guard) {
      if (ir::Operation* def = t->definingOp()) {
        if (def->is("tile.init_tile"))
          return def->operand(0)->type().isMemRef() ? def->operand(0) : nullptr;
        if (def->is("tile.update_tile_offset")) {
          t = def->operand(0);
        } else if (def->is("scf.for")) {
          t = def->operand(3 + t->index());
        } else if (def->is("scf.if")) {
          t = def->region(0).block().terminator()->operand(t->index());
        } else {
          return nullptr;
        }
        continue;
      }
      // A loop block argument (argument 0 is the induction variable).
      ir::Operation* loop = t->ownerBlock() ? t->ownerBlock()->parentOp() : nullptr;
      if (!loop || !loop->is("scf.for") || t->index() == 0) return nullptr;
      t = loop->operand(3 + t->index() - 1);
    }
    return nullptr;
  }

private:
  [[noreturn]] void die(const ir::Operation& op, const std::string& msg) {
    fail_(op, msg);
    throw std::logic_error("LoweredValues: the fail callback returned");
  }

  Fail fail_;
  std::unordered_map<ir::Value*, std::vector<ir::Value*>> map_;
  std::unordered_map<ir::Value*, TileState> tiles_;
};

}  // namespace xtc::passes
