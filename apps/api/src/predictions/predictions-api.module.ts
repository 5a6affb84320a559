import { Module } from '@nestjs/common';
import { ForecastReadersModule, PredictionsModule } from '@solar/predictions';
import { PredictionsController } from './predictions.controller';

/**
 * Training and forecast jobs. Also binds the ROI calculation's forecast days to
 * the latest stored forecast (`ForecastReadersModule`, global).
 */
@Module({ imports: [PredictionsModule, ForecastReadersModule], controllers: [PredictionsController] })
export class PredictionsApiModule {}
