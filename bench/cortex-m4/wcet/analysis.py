# SPDX-License-Identifier: MIT
"""analysis.py - the control-flow graph of a function and of everything it calls, the proof
that it has no cycle, and its longest path in instructions and in cycles.

A function's graph has one node per reachable instruction, plus pseudo-nodes for tail
calls and the exit. Edges say whether they are a taken branch (a refill P in the cycle
model) and which instruction precedes the target on that edge (for the load/store rules of
timing.py). Calls (bl) are nodes whose cost includes the callee's bound, computed first;
the call graph must be acyclic too (recursion is refused).

Anything the analysis cannot follow is refused with AnalysisError naming the instruction:
an indirect branch or call not allowed by the configuration, a write to pc other than a
return, a table branch without a visible bound, a branch into another function's middle,
control running off the end of a function, a loop that the configuration does not bound.

A loop allowed by the configuration (config.json, "bounded_loops": for each loop header, in
the order of nesting, the most times it runs in one call) must be entered through one
header; it becomes one node costing the sum over its headers of bound x longest pass (from
the header to the next header or out of the loop), reported as such. Nested loops are
allowed this way, each header with its own total bound (a drain's inner loop: the blocks
of all stacks together).
"""

import fnmatch

import timing
from thumb import (BRANCH, BRANCH_INDIRECT, CALL, CALL_INDIRECT, FALL, RETURN, TABLE, TRAP,
                   UNFOLLOWABLE, AnalysisError, canonical)

EXIT = "exit"


class Bound:
    """The longest path of a function, with what it relied on."""

    def __init__(self, name):
        self.name = name
        self.instructions = 0
        self.cycles = 0
        self.path = []        # steps of the longest path in instructions (see _walk)
        self.cycle_path = []  # steps of the longest path in cycles
        self.loops = []       # (function, header address, iterations, body instructions, body cycles)
        self.exclusions = {}  # description -> why (calls not entered)
        self.callees = set()  # every function entered, transitively


class Edge:
    __slots__ = ("source", "target", "taken", "previous")

    def __init__(self, source, target, taken, previous):
        self.source = source      # node id
        self.target = target      # node id
        self.taken = taken        # a taken branch: the refill P is paid on this edge
        self.previous = previous  # the instruction before the target on this edge, or None


class Analyzer:
    def __init__(self, functions, config):
        self.functions = functions
        self.by_address = {}
        for function in functions.values():
            self.by_address.setdefault(function.address, function)
        self.config = config
        self.bounds = {}
        self.active = []   # the call chain being analysed (recursion check)

    # ---- configuration --------------------------------------------------------------------

    def _rule(self, section, name):
        for rule in self.config.get(section, []):
            if fnmatch.fnmatchcase(name, rule["symbol"]):
                return rule
        return None

    # ---- interprocedural -------------------------------------------------------------------

    def bound(self, name):
        """The Bound of the function `name`, analysing its callees first."""
        if name in self.bounds:
            return self.bounds[name]
        if name in self.active:
            chain = " -> ".join(self.active[self.active.index(name):] + [name])
            raise AnalysisError("recursion: %s (a cycle in the call graph)" % chain)
        if name not in self.functions:
            raise AnalysisError("no function %s in the image" % name)
        self.active.append(name)
        try:
            result = FunctionGraph(self, self.functions[name]).solve()
        finally:
            self.active.pop()
        self.bounds[name] = result
        return result

    def callee(self, caller, insn, target):
        """(Bound or None, description): the function a call or tail call at `insn` enters;
        None when the configuration lists it as external (the call is counted, not
        entered)."""
        function = self.by_address.get(target)
        if function is None:
            raise AnalysisError("%s: %s at 0x%x goes to 0x%x, not the start of a function"
                                % (caller.name, insn.text, insn.address, target))
        rule = self._rule("external_calls", function.name)
        if rule is not None:
            return None, ("call of %s (not entered): %s" % (function.name, rule["why"]))
        return self.bound(function.name), None

    def indirect(self, caller, insn):
        rule = self._rule("indirect_calls", caller.name)
        if rule is None:
            raise AnalysisError("%s: indirect %s at 0x%x: cannot follow it (allow it in "
                                "config.json \"indirect_calls\" if it leaves the analysed "
                                "code)" % (caller.name, insn.text, insn.address))
        return "indirect %s in %s (not entered): %s" % (insn.text, caller.name, rule["why"])

    def loop_rule(self, function):
        return self._rule("bounded_loops", function.name)


class FunctionGraph:
    """One function's graph, its loops and its longest path."""

    def __init__(self, analyzer, function):
        self.analyzer = analyzer
        self.function = function
        self.nodes = {}        # node id -> ("insn", Instruction) | ("tail", Bound|None) | ("exit",)
        self.edges = {}        # node id -> [Edge]
        self.bound = Bound(function.name)
        self.tables = []       # tbb/tbh instructions, checked once the graph is known

    # ---- building --------------------------------------------------------------------------

    def _fail(self, insn, why):
        raise AnalysisError("%s: %s at 0x%x: %s" % (self.function.name, insn.text,
                                                      insn.address, why))

    def _insn(self, address, source):
        function = self.function
        if address not in function.insns:
            what = "data" if address in function.data else "no instruction"
            self._fail(source, "control reaches 0x%x (%s)" % (address, what))
        insn = function.insns[address]
        if insn.it_cond is not None and insn.it_head != source.address \
                and function.insns.get(_previous_address(function, address)) is not source:
            self._fail(source, "branches into the IT block at 0x%x" % address)
        return address

    def _add(self, source, target, taken, previous):
        self.edges.setdefault(source, []).append(Edge(source, target, taken, previous))

    def _fallthrough(self, insn):
        following = insn.address + insn.size
        if following not in self.function.insns:
            if insn.kind in (CALL, CALL_INDIRECT):
                return None   # a call that does not return (the last instruction)
            self._fail(insn, "control runs off the end of the function")
        return following

    def _tail(self, insn, target):
        """A pseudo-node for a branch to another function (a tail call)."""
        callee, excluded = self.analyzer.callee(self.function, insn, target)
        node = ("tail", insn.address, target)
        self.nodes[node] = ("tail", callee)
        if excluded:
            self.bound.exclusions[excluded] = True
        else:
            self._merge(callee)
        self._add(node, EXIT, False, None)
        return node

    def _merge(self, callee):
        self.bound.callees.add(callee.name)
        self.bound.callees |= callee.callees
        self.bound.exclusions.update(callee.exclusions)
        self.bound.loops.extend(l for l in callee.loops if l not in self.bound.loops)

    def build(self):
        function = self.function
        self.nodes[EXIT] = ("exit",)
        start = function.address
        if start not in function.insns:
            raise AnalysisError("%s: no instruction at its address" % function.name)
        pending = [start]
        seen = {start}
        while pending:
            address = pending.pop()
            insn = function.insns[address]
            self.nodes[address] = ("insn", insn)
            for target in self._successors(insn):
                if target not in seen and target in function.insns:
                    seen.add(target)
                    pending.append(target)
        self._check_tables()

    def _successors(self, insn):
        """Adds insn's out-edges; returns the instruction addresses they reach."""
        out = []
        kind = insn.kind
        node = insn.address
        if kind == FALL:
            following = self._fallthrough(insn)
            self._add(node, self._insn(following, insn), False, insn)
            return [following]
        if kind == BRANCH:
            target = insn.target
            if self.function.contains(target):
                self._add(node, self._insn(target, insn), True, None)
                out.append(target)
            else:
                self._add(node, self._tail(insn, target), True, None)
        elif kind == CALL:
            callee, excluded = self.analyzer.callee(self.function, insn, insn.target)
            self.nodes[node] = ("insn", insn)
            insn.callee = callee
            if excluded:
                self.bound.exclusions[excluded] = True
            else:
                self._merge(callee)
        elif kind == CALL_INDIRECT:
            self.bound.exclusions[self.analyzer.indirect(self.function, insn)] = True
            insn.callee = None
        elif kind == BRANCH_INDIRECT:
            self.bound.exclusions[self.analyzer.indirect(self.function, insn)] = True
            self._add(node, EXIT, True, None)
        elif kind == RETURN:
            self._add(node, EXIT, True, None)
        elif kind == TRAP:
            self._add(node, EXIT, False, None)
        elif kind == TABLE:
            for target in self._table_targets(insn):
                self._add(node, self._insn(target, insn), True, None)
                out.append(target)
            return out
        else:
            assert kind == UNFOLLOWABLE
            self._fail(insn, "cannot follow this instruction (an indirect branch, a computed "
                             "write to pc, or one that waits or enters the system)")
        if kind in (CALL, CALL_INDIRECT):
            # A conditional call (in an IT block) is charged as made: an upper bound.
            following = self._fallthrough(insn)
            if following is None:
                self._add(node, EXIT, False, None)
            else:
                self._add(node, self._insn(following, insn), False, None)
                out.append(following)
        elif insn.conditional:
            # Not taken: the next instruction follows a branch (no load/store pairing).
            following = self._fallthrough(insn)
            self._add(node, self._insn(following, insn), False, None)
            out.append(following)
        return out

    # ---- table branches --------------------------------------------------------------------

    def _table_targets(self, insn):
        """The targets of tbb [pc, rX] / tbh [pc, rX, lsl #1], bounded by the 'cmp rX, #k;
        bhi <default>' right before it (k + 1 entries)."""
        function = self.function
        ops = insn.operands.lower().replace(" ", "")
        if not ops.startswith("[pc,"):
            self._fail(insn, "a table branch whose table is not at pc")
        index = canonical(ops[4:].split(",")[0].rstrip("]"))
        guard = function.insns.get(_previous_address(function, insn.address))
        compare = guard and function.insns.get(_previous_address(function, guard.address))
        if not (guard and compare and guard.base == "b" and guard.cond == "hi"
                and compare.base == "cmp" and guard.it_cond is None
                and compare.it_cond is None):
            self._fail(insn, "no 'cmp %s, #k; bhi' right before it: the table's length is "
                             "unknown" % index)
        operands = [x.strip() for x in compare.operands.lower().split(",")]
        if canonical(operands[0]) != index or not operands[1].startswith("#"):
            self._fail(insn, "the comparison before it (%s) does not bound %s"
                       % (compare.text, index))
        entries = int(operands[1][1:], 0) + 1
        width = 1 if insn.base == "tbb" else 2
        table = insn.address + 4
        targets = []
        for k in range(entries):
            raw = [function.data.get(table + width * k + j) for j in range(width)]
            if None in raw:
                self._fail(insn, "entry %d of its table is not in the image's data" % k)
            value = sum(b << (8 * j) for j, b in enumerate(raw))
            targets.append(table + 2 * value)
        self.tables.append((insn, guard, compare))
        return targets

    def _check_tables(self):
        """The bound holds only if the table branch is reached through its guard."""
        incoming = {}
        for edges in self.edges.values():
            for edge in edges:
                incoming.setdefault(edge.target, []).append(edge.source)
        for insn, guard, compare in self.tables:
            if incoming.get(insn.address, []) != [guard.address] or \
                    incoming.get(guard.address, []) != [compare.address]:
                self._fail(insn, "reached other than through its bound check")

    # ---- loops -----------------------------------------------------------------------------

    def _components(self):
        """Strongly connected components with a cycle (Tarjan, iterative)."""
        index, low, on_stack, stack, result = {}, {}, set(), [], []
        counter = [0]
        for root in self.nodes:
            if root in index:
                continue
            work = [(root, iter(self.edges.get(root, [])))]
            index[root] = low[root] = counter[0]
            counter[0] += 1
            stack.append(root)
            on_stack.add(root)
            while work:
                node, it = work[-1]
                advanced = False
                for edge in it:
                    target = edge.target
                    if target not in index:
                        index[target] = low[target] = counter[0]
                        counter[0] += 1
                        stack.append(target)
                        on_stack.add(target)
                        work.append((target, iter(self.edges.get(target, []))))
                        advanced = True
                        break
                    if target in on_stack:
                        low[node] = min(low[node], index[target])
                if advanced:
                    continue
                work.pop()
                if work:
                    low[work[-1][0]] = min(low[work[-1][0]], low[node])
                if low[node] == index[node]:
                    component = []
                    while True:
                        member = stack.pop()
                        on_stack.discard(member)
                        component.append(member)
                        if member == node:
                            break
                    looping = len(component) > 1 or any(
                        e.target == node for e in self.edges.get(node, []))
                    if looping:
                        result.append(set(component))
        return result

    def _loop_headers(self):
        """Targets of the back edges of a depth-first walk from the entry, in the order the
        walk discovers them: an outer loop's header before its inner loops' headers."""
        preorder, on_path, headers = {}, set(), set()
        work = [(self.entry, iter(self.edges.get(self.entry, [])))]
        preorder[self.entry] = 0
        on_path.add(self.entry)
        while work:
            node, it = work[-1]
            for edge in it:
                target = edge.target
                if target in on_path:
                    headers.add(target)
                elif target not in preorder:
                    preorder[target] = len(preorder)
                    on_path.add(target)
                    work.append((target, iter(self.edges.get(target, []))))
                    break
            else:
                work.pop()
                on_path.discard(node)
        return sorted(headers, key=lambda h: preorder[h])

    def _collapse_loops(self):
        components = self._components()
        if not components:
            return
        function = self.function
        rule = self.analyzer.loop_rule(function)
        headers = self._loop_headers()
        where = ", ".join("0x%x" % h for h in headers)
        if rule is None:
            raise AnalysisError("%s: a loop (header%s at %s): O(1) not shown: no bound for it "
                                "in config.json \"bounded_loops\"" %
                                (function.name, "s" if len(headers) > 1 else "", where))
        iterations = rule["iterations"]
        iterations = list(iterations) if isinstance(iterations, list) else [iterations]
        if len(iterations) != len(headers):
            raise AnalysisError("%s: %d loops (headers at %s), config.json bounds %d" %
                                (function.name, len(headers), where, len(iterations)))
        bound_of = dict(zip(headers, (int(n) for n in iterations)))
        for component in components:
            self._collapse(component, bound_of, rule)

    def _collapse(self, component, bound_of, rule):
        """Replaces a loop (a strongly connected component) by one node. Cut at its
        headers, the component is acyclic; every run through it is a sequence of passes,
        each from a header to the next header or out, and header h starts at most
        bound_of[h] of them: the node costs the sum of bound x longest pass."""
        function = self.function
        entries = {e.target for edges in self.edges.values() for e in edges
                   if e.target in component and e.source not in component}
        if self.entry in component:
            entries.add(self.entry)
        headers = [h for h in bound_of if h in component]
        if len(entries) != 1 or not entries <= set(headers):
            raise AnalysisError("%s: a loop entered at %s, not through one header "
                                "(irreducible): refused" % (function.name, ", ".join(
                                    "0x%x" % e for e in entries if isinstance(e, int))))
        inner = {n: [e for e in self.edges.get(n, []) if e.target in component
                     and e.target not in headers] for n in component}
        order = _topological(component, inner, "%s: a loop without a header: refused"
                             % function.name)
        body_i, body_c = {}, {}
        for node in reversed(order):
            cost_i, cost_c = self._worst_node_cost(node, component)
            best_i, best_c = 0, 0
            for edge in self.edges.get(node, []):
                penalty = timing.TAKEN if edge.taken else 0
                if edge.target in component and edge.target not in headers:
                    best_i = max(best_i, body_i[edge.target])
                    best_c = max(best_c, penalty + body_c[edge.target])
                elif edge.target in component:
                    best_c = max(best_c, penalty)
            body_i[node], body_c[node] = cost_i + best_i, cost_c + best_c
        passes = [(h, bound_of[h], body_i[h], body_c[h]) for h in headers]
        loop = ("loop", min(headers))
        self.nodes[loop] = ("loop", passes, rule["why"])
        self.bound.loops.extend((function.name,) + p for p in passes)
        # Rewire: edges into the component go to the loop node, edges out leave from it.
        out = [e for n in component for e in self.edges.get(n, []) if e.target not in component]
        for node in component:
            self.nodes.pop(node)
            self.edges.pop(node, None)
        for edges in self.edges.values():
            for edge in edges:
                if edge.target in component:
                    edge.target = loop
        self.edges[loop] = [Edge(loop, e.target, e.taken, e.previous) for e in out]
        if self.entry in component:
            self.entry = loop

    def _worst_node_cost(self, node, component):
        kind = self.nodes[node]
        if kind[0] != "insn":
            return self._node_cost(node, None)
        previous = [e.previous for edges in self.edges.values() for e in edges
                    if e.target == node and e.source in component]
        candidates = [self._node_cost(node, p) for p in previous + [None]]
        return max(c[0] for c in candidates), max(c[1] for c in candidates)

    # ---- costs and the longest path --------------------------------------------------------

    def _node_cost(self, node, previous):
        """(instructions, cycles) of a node entered with `previous` before it."""
        kind = self.nodes[node]
        if kind[0] == "exit":
            return 0, 0
        if kind[0] == "tail":
            callee = kind[1]
            return (callee.instructions, callee.cycles) if callee else (0, 0)
        if kind[0] == "loop":
            return (sum(n * pass_i for _, n, pass_i, _ in kind[1]),
                    sum(n * pass_c for _, n, _, pass_c in kind[1]))
        insn = kind[1]
        instructions, cycles = 1, timing.cost(insn, previous)
        if insn.kind in (CALL, CALL_INDIRECT):
            cycles += timing.TAKEN           # bl/blx: 1 + P
            callee = insn.callee
            if callee is not None:
                instructions += callee.instructions
                cycles += callee.cycles
        return instructions, cycles

    def solve(self):
        self.entry = self.function.address
        self.build()
        self._collapse_loops()
        order = _topological(list(self.nodes), self.edges,
                             "%s: a cycle in the graph" % self.function.name)
        best_i, best_c, choice_i, choice_c = {}, {}, {}, {}
        for node in reversed(order):
            bi, bc, pick_i, pick_c = 0, 0, None, None
            for edge in self.edges.get(node, []):
                ti, tc = self._node_cost(edge.target, edge.previous)
                vi = ti + best_i[edge.target]
                vc = tc + best_c[edge.target] + (timing.TAKEN if edge.taken else 0)
                if pick_i is None or vi > bi:
                    bi, pick_i = vi, edge
                if pick_c is None or vc > bc:
                    bc, pick_c = vc, edge
            best_i[node], best_c[node] = bi, bc
            choice_i[node], choice_c[node] = pick_i, pick_c
        entry_i, entry_c = self._node_cost(self.entry, None)
        self.bound.instructions = entry_i + best_i[self.entry]
        self.bound.cycles = entry_c + best_c[self.entry]
        self.bound.path = self._walk(choice_i)
        self.bound.cycle_path = self._walk(choice_c)
        return self.bound

    def _walk(self, choice):
        """A longest path: [(node kind, instructions, cycles, leaves by a taken branch)]."""
        steps = []
        node, previous = self.entry, None
        while node != EXIT:
            kind = self.nodes[node]
            cost_i, cost_c = self._node_cost(node, previous)
            edge = choice.get(node)
            steps.append((kind, cost_i, cost_c, edge is not None and edge.taken))
            if edge is None:
                break
            node, previous = edge.target, edge.previous
        return steps


def _previous_address(function, address):
    index = function.order.index(address)
    return function.order[index - 1] if index > 0 else None


def _topological(nodes, edges, message):
    """Nodes in topological order; AnalysisError(message) if there is a cycle."""
    state, order = {}, []
    node_set = set(nodes)
    for root in nodes:
        if root in state:
            continue
        state[root] = 1
        work = [(root, iter(edges.get(root, [])))]
        while work:
            node, it = work[-1]
            for edge in it:
                target = edge.target
                if target not in node_set:
                    continue
                if state.get(target) == 1:
                    raise AnalysisError(message)
                if target not in state:
                    state[target] = 1
                    work.append((target, iter(edges.get(target, []))))
                    break
            else:
                work.pop()
                state[node] = 2
                order.append(node)
    order.reverse()
    return order
