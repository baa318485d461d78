from pkgutil import extend_path
__path__ = extend_path(__path__, __name__)

import abc
import builtins
import datetime
import enum
import typing

import jsii
import publication
import typing_extensions

from jsii._type_checking import cached_type_hints, check_type


import cdk8s._jsii
import constructs._jsii

__jsii_assembly__ = jsii.JSIIAssembly.load(
    "scaledobject_shkeda",
    "0.0.0",
    __name__[0:-6],
    "scaledobject_shkeda@0.0.0.jsii.tgz",
)

__all__ = [
    "__jsii_assembly__",
]

publication.publish()
