package io.github.ham.mapreduce;

/** Life of one attempt. */
public enum AttemptState { RUNNING, SUCCEEDED, FAILED, KILLED }
