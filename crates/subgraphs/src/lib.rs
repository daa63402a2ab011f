//! Trunda's subgraph-count state features (thesis, chapter 4): the labelled
//! object graph of a PDDL state and goal, and the number of occurrences of
//! each small connected induced subgraph in it.
