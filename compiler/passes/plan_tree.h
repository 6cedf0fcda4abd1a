/* plan_tree.h - an ordered set of byte ranges for the memory planner
 * (prefix plan_tree_): a treap keyed by offset, each node a range
 * [off, off + len), every subtree knowing its largest len. Insert, erase,
 * neighbours and "lowest range at least this long" are O(log n) expected,
 * which keeps planning and checking large graphs near-linear.
 * Node priorities come from a fixed-seed generator: same input, same tree. */
#ifndef MPCC_PLAN_TREE_H
#define MPCC_PLAN_TREE_H

#include <stdint.h>

typedef struct PlanTreeNode {
    int64_t off, len, max_len;  /* range and the largest len in this subtree */
    uint32_t prio;
    int id;                     /* the caller's tag for the range */
    int left, right;            /* node indices, -1 none */
} PlanTreeNode;

typedef struct PlanTree {
    PlanTreeNode *node;         /* pool; freed nodes are chained through .left */
    int root, free_list, used, cap;
    uint32_t rng;
} PlanTree;

/* Room for `cap` ranges at once. Returns 0, or -1 when out of memory. */
int plan_tree_init(PlanTree *t, int cap);
void plan_tree_free(PlanTree *t);
/* Adds [off, off + len) tagged id; off must not be in the set yet. Returns 0, or -1 when full. */
int plan_tree_insert(PlanTree *t, int64_t off, int64_t len, int id);
/* Removes the range starting at off (no-op if none). */
void plan_tree_erase(PlanTree *t, int64_t off);
/* The range with the largest off <= key / the smallest off > key, or -1. */
int plan_tree_floor(const PlanTree *t, int64_t key);
int plan_tree_above(const PlanTree *t, int64_t key);
/* The range with the lowest off whose len >= len, or -1. */
int plan_tree_first_fit(const PlanTree *t, int64_t len);

#endif
