// Local ESLint rule: a console feature never imports another feature, whether by a path naming
// `features/<other>/` or by a relative path that climbs into a sibling feature
// (`../../orders/api/…`). The import is resolved against the importing file and the feature
// folders are compared; shared code lives in components/, lib/, hooks/ or app/.
import path from 'node:path';

const featuresSegment = /(?:^|\/)features\/([^/]+)(?:\/|$)/;

/** The feature folder a path lies in, or undefined outside features/. */
function featureOf(file) {
  const match = featuresSegment.exec(file.split(path.sep).join('/'));
  return match?.[1];
}

/** The feature an import specifier reaches, resolved against the importing file's folder. */
function importedFeature(specifier, filename, cwd) {
  if (specifier.startsWith('.')) return featureOf(path.relative(cwd, path.resolve(path.dirname(filename), specifier)));
  return featureOf(specifier);
}

export const featureBoundaries = {
  meta: {
    type: 'problem',
    docs: { description: 'console features do not import each other' },
    messages: {
      crossFeature:
        "feature '{{from}}' imports feature '{{to}}': features do not import each other, move shared code to lib/, components/ or app/",
    },
    schema: [],
  },
  create(context) {
    const filename = context.filename;
    const own = featureOf(path.relative(context.cwd, filename));
    if (own === undefined) return {};
    const check = (node) => {
      const source = node.source;
      if (!source || typeof source.value !== 'string') return;
      const target = importedFeature(source.value, filename, context.cwd);
      if (target !== undefined && target !== own) {
        context.report({ node: source, messageId: 'crossFeature', data: { from: own, to: target } });
      }
    };
    return {
      ImportDeclaration: check,
      ExportNamedDeclaration: check,
      ExportAllDeclaration: check,
      ImportExpression: check,
    };
  },
};

export default { rules: { 'feature-boundaries': featureBoundaries } };
