"""The team-namespace guard rails, one module per policy; k8s_charts/team_guardrails.py composes them into
ValidatingAdmissionPolicies and their bindings (its docstring says what each policy refuses)."""
