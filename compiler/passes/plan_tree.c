/* plan_tree.c - the memory planner's ordered set of ranges (see plan_tree.h). */
#include "plan_tree.h"

#include <stdlib.h>

int plan_tree_init(PlanTree *t, int cap) {
    t->node = malloc(sizeof *t->node * (size_t)(cap > 0 ? cap : 1));
    t->root = t->free_list = -1;
    t->used = 0;
    t->cap = cap > 0 ? cap : 1;
    t->rng = 0x9E3779B9u;
    return t->node ? 0 : -1;
}

void plan_tree_free(PlanTree *t) {
    free(t->node);
    t->node = NULL;
}

static void update(PlanTree *t, int x) {
    PlanTreeNode *n = &t->node[x];
    int64_t m = n->len;
    if (n->left >= 0 && t->node[n->left].max_len > m) m = t->node[n->left].max_len;
    if (n->right >= 0 && t->node[n->right].max_len > m) m = t->node[n->right].max_len;
    n->max_len = m;
}

/* Splits subtree x into keys < key (*l) and keys >= key (*r). */
static void split(PlanTree *t, int x, int64_t key, int *l, int *r) {
    if (x < 0) {
        *l = *r = -1;
        return;
    }
    if (t->node[x].off < key) {
        split(t, t->node[x].right, key, &t->node[x].right, r);
        *l = x;
    } else {
        split(t, t->node[x].left, key, l, &t->node[x].left);
        *r = x;
    }
    update(t, x);
}

/* Joins a and b, every key of a below every key of b. */
static int merge(PlanTree *t, int a, int b) {
    if (a < 0) return b;
    if (b < 0) return a;
    if (t->node[a].prio > t->node[b].prio) {
        t->node[a].right = merge(t, t->node[a].right, b);
        update(t, a);
        return a;
    }
    t->node[b].left = merge(t, a, t->node[b].left);
    update(t, b);
    return b;
}

int plan_tree_insert(PlanTree *t, int64_t off, int64_t len, int id) {
    int x;
    if (t->free_list >= 0) {
        x = t->free_list;
        t->free_list = t->node[x].left;
    } else {
        if (t->used == t->cap) return -1;
        x = t->used++;
    }
    t->rng ^= t->rng << 13; /* xorshift32 */
    t->rng ^= t->rng >> 17;
    t->rng ^= t->rng << 5;
    t->node[x] = (PlanTreeNode){off, len, len, t->rng, id, -1, -1};
    int l, r;
    split(t, t->root, off, &l, &r);
    t->root = merge(t, merge(t, l, x), r);
    return 0;
}

void plan_tree_erase(PlanTree *t, int64_t off) {
    int l, m, r;
    split(t, t->root, off, &l, &r);
    split(t, r, off + 1, &m, &r);
    if (m >= 0) { /* keys are unique: m is one node */
        t->node[m].left = t->free_list;
        t->free_list = m;
    }
    t->root = merge(t, l, r);
}

/* The node with the largest off <= key (above = 0) or the smallest off > key (above = 1). */
static int nearest(const PlanTree *t, int64_t key, int above) {
    int x = t->root, best = -1;
    while (x >= 0) {
        int right = t->node[x].off <= key;
        if (right != above) best = x;
        x = right ? t->node[x].right : t->node[x].left;
    }
    return best;
}

int plan_tree_floor(const PlanTree *t, int64_t key) { return nearest(t, key, 0); }
int plan_tree_above(const PlanTree *t, int64_t key) { return nearest(t, key, 1); }

int plan_tree_first_fit(const PlanTree *t, int64_t len) {
    int x = t->root;
    if (x < 0 || t->node[x].max_len < len) return -1;
    for (;;) {
        const PlanTreeNode *n = &t->node[x];
        if (n->left >= 0 && t->node[n->left].max_len >= len) x = n->left;
        else if (n->len >= len) return x;
        else x = n->right; /* max_len says the right subtree has one */
    }
}
